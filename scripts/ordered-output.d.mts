/** Types of ordered-output.mjs, for the tests that import it. */
export function runInOrder(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string },
  writeLine: (line: string, stream: 'stdout' | 'stderr') => void,
): Promise<{ code: number | null; stdout: string; stderr: string }>;
