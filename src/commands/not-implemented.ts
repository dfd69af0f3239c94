import type { HandlerModule } from '../cli/command-context.js';

/** Commands whose issue has not landed: run-cli reports "not implemented yet" (exit 1), never a fake success. */
export const handlers: HandlerModule['handlers'] = () => undefined;
