/** docs/error-codes.md and the code's list of error codes say the same, exit codes included; an error's code decides its kind and its exit code. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DpgwError, type ErrorKind } from '../../src/errors/dpgw-error.js';
import { ERROR_CODES, type ErrorCode, type ErrorCodeEntry } from '../../src/errors/error-codes.js';
import { ROOT } from '../helpers/run-dpgw.js';

describe('error codes', () => {
  it('the docs page lists every code with its exit code, and nothing else', () => {
    const page = readFileSync(join(ROOT, 'docs/error-codes.md'), 'utf8');
    const rows = [...page.matchAll(/^\| `([A-Z_]+)` \| (\d+) \|/gm)].map((m) => [m[1], Number(m[2])]);
    expect(rows).toEqual(Object.entries(ERROR_CODES).map(([code, entry]) => [code, entry.exit]));
  });

  it('codes are upper snake case', () => {
    for (const code of Object.keys(ERROR_CODES)) expect(code).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
  });

  it('the code decides the kind and the exit code, so the three cannot disagree', () => {
    expect(new DpgwError('SETTING_MISSING', 'x').toJSON()).toMatchObject({ code: 'SETTING_MISSING', kind: 'usage', exitCode: 2 });
    expect(new DpgwError('CONFIG_INVALID', 'x').toJSON()).toMatchObject({ code: 'CONFIG_INVALID', kind: 'input', exitCode: 2 });
    expect(new DpgwError('SIGN_IN_FAILED', 'x').toJSON()).toMatchObject({ code: 'SIGN_IN_FAILED', kind: 'failure', exitCode: 1 });
    expect(new DpgwError('STREAM_USER_REFUSED', 'x').toJSON()).toMatchObject({ code: 'STREAM_USER_REFUSED', kind: 'auth', exitCode: 4 });
    expect(new DpgwError('SERVER_TIMEOUT', 'x').toJSON()).toMatchObject({ code: 'SERVER_TIMEOUT', kind: 'network', exitCode: 5 });
    // Every code: its own code kept, an exit code from its entry, and a kind that ends with that exit code.
    const exitOfKind = new Map<ErrorKind, number>();
    for (const [code, entry] of Object.entries(ERROR_CODES) as Array<[ErrorCode, ErrorCodeEntry]>) {
      const error = new DpgwError(code, 'x');
      expect([error.errorCode, error.exitCode]).toEqual([code, entry.exit]);
      expect(exitOfKind.get(error.kind) ?? entry.exit, `${code} is of kind ${error.kind}, which other codes end with another exit code`).toBe(entry.exit);
      exitOfKind.set(error.kind, entry.exit);
    }
    expect([...exitOfKind.keys()].sort()).toEqual(['auth', 'failure', 'input', 'interrupted', 'network', 'not-found', 'rejected', 'unhealthy', 'usage', 'verification']);
  });
});
