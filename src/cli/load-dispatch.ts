/**
 * The dispatcher's import, in one place for run-cli.ts and main.ts. bin/dpgw runs the
 * start-up bundle from V8's code cache, where import() has no module loader behind it
 * (Node 20), and hands in its loader of dist/cli/commands.cjs (from a code cache too);
 * without it the bundle requires commands.cjs (scripts/build.mjs); in-process callers
 * (the tests) import the source here.
 */
import type * as DispatchModule from './dispatch.js';

const handedIn = (globalThis as { [key: symbol]: (() => Promise<typeof DispatchModule>) | undefined })[Symbol.for('dpgw.importDispatch')];

export const loadDispatch: () => Promise<typeof DispatchModule> = handedIn ?? (() => import('./dispatch.js'));
