/** docs/error-codes.md and the code's list of error codes say the same, exit codes included; every error gets a code that agrees with its exit code. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DpgwError } from '../../src/errors/dpgw-error.js';
import { ERROR_CODES } from '../../src/errors/error-codes.js';
import { ROOT } from '../helpers/run-dpgw.js';

describe('error codes', () => {
  it('the docs page lists every code with its exit code, and nothing else', () => {
    const page = readFileSync(join(ROOT, 'docs/error-codes.md'), 'utf8');
    const rows = [...page.matchAll(/^\| `([A-Z_]+)` \| (\d+) \|/gm)].map((m) => [m[1], Number(m[2])]);
    expect(rows).toEqual(Object.entries(ERROR_CODES).map(([code, entry]) => [code, entry.exit]));
  });

  it('codes are upper snake case, and an error whose code would disagree with its exit code carries its kind\'s general code', () => {
    for (const code of Object.keys(ERROR_CODES)) expect(code).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
    expect(new DpgwError('usage', 'x', { code: 'SETTING_MISSING' }).errorCode).toBe('SETTING_MISSING');
    expect(new DpgwError('network', 'x', { code: 'SETTING_MISSING' }).errorCode).toBe('NETWORK_ERROR');
    expect(new DpgwError('failure', 'x', { code: 'FAILURE' }).toJSON()).toMatchObject({ code: 'FAILURE', exitCode: 1 });
  });
});
