/** One sandbox for each test of a file, closed after it, whatever the test's outcome. */
import { afterEach } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/sandbox.js';

export function sandboxPerTest(defaults: SandboxOptions = {}): { start(options?: SandboxOptions): Promise<Sandbox>; current(): Sandbox } {
  let sandbox: Sandbox | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });
  return {
    start: async (options = {}) => (sandbox = await startSandbox({ ...defaults, ...options })),
    current: () => {
      if (!sandbox) throw new Error('no sandbox: call start() in the test first');
      return sandbox;
    },
  };
}
