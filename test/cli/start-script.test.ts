/**
 * `npm start` (scripts/start.mjs, after the build `npm test` has made): the contract's steps 1–9 on a sandbox of its
 * own, every step exiting as the script says it should. CI runs it too; here it fails the suite the moment a command's
 * behaviour moves under one of its steps (a converging `table create` once turned its wrong-password step into exit 2).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { cleanEnv, ROOT } from '../helpers/run-dpgw.js';

it('npm start runs every step as it says and stops its sandbox', async () => {
  const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(process.execPath, [join(ROOT, 'scripts/start.mjs')], { cwd: ROOT, env: cleanEnv(), timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
  expect(result.code, `${result.stdout.slice(-3000)}\n${result.stderr.slice(-2000)}`).toBe(0);
  expect(result.stdout).toContain('npm start: done; the sandbox is stopped');
  // The wrong stream password is refused by the brokers, before any table is sent.
  expect(result.stdout).toMatch(/a wrong stream password: refused by the brokers[^\n]*\n\$ dpgw table create [^\n]*--name track_check/);
}, 150_000);
