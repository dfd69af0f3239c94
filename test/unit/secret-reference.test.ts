import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type DpgwError } from '../../src/errors/dpgw-error.js';
import { redactText } from '../../src/secrets/redaction.js';
import { resolveSecretReference, splitCommandLine, type SecretReferenceContext } from '../../src/secrets/secret-reference.js';

const dir = mkdtempSync(join(tmpdir(), 'dpgw-secret-'));
const context = (extra: Partial<SecretReferenceContext> = {}): SecretReferenceContext => ({ where: '--client-secret', env: { PATH: process.env.PATH, MY_SECRET: 'from-env-value' }, label: 'client secret', ...extra });
const failure = (reference: string, extra: Partial<SecretReferenceContext> = {}) =>
  resolveSecretReference(reference, context(extra)).then(
    () => {
      throw new Error('expected a failure');
    },
    (error: DpgwError) => error,
  );

describe('secret references', () => {
  it('env:, file:, exec: and base64:', async () => {
    expect(await resolveSecretReference('env:MY_SECRET', context())).toBe('from-env-value');
    writeFileSync(join(dir, 'secret.txt'), 'from-file-value\n');
    expect(await resolveSecretReference(`file:${join(dir, 'secret.txt')}`, context())).toBe('from-file-value');
    expect(await resolveSecretReference(`exec:${process.execPath} -e "process.stdout.write('from exec value\\n')"`, context())).toBe('from exec value');
    const encoded = Buffer.from('decoded-secret-value').toString('base64');
    expect(await resolveSecretReference(`base64:exec:${process.execPath} -e "console.log('${encoded}')"`, context())).toBe('decoded-secret-value');
  });

  it('registers what it read, so no later output shows it', async () => {
    await resolveSecretReference('env:MY_SECRET', context());
    expect(redactText('x from-env-value y')).toBe('x *** y');
  });

  it('runs exec: without a shell', async () => {
    // With a shell, $HOME would expand and the pipe would run.
    expect(await resolveSecretReference(`exec:${process.execPath} -e "console.log(process.argv.slice(1).join(' '))" '$HOME' '|' cat`, context())).toBe('$HOME | cat');
  });

  it('says what is wrong, where, and what to do', async () => {
    const unset = await failure('env:NOT_SET_ANYWHERE');
    expect(unset.toLine()).toBe('--client-secret: the client secret reference env:NOT_SET_ANYWHERE names a variable that is not set — export NOT_SET_ANYWHERE=… or change the reference');
    // Not a reference is taken for the secret itself: named, never repeated, not even its first characters.
    const notReference = await failure('vault:kv/x');
    expect(notReference.message).toBe('the client secret must be a secret reference (env:NAME, file:PATH, exec:COMMAND ARGS…, base64:<reference> or prompt), not the secret itself');
    expect(notReference.toLine()).not.toContain('vault');
    expect((await failure(`file:${join(dir, 'missing')}`)).message).toContain('no such file');
    expect((await failure('exec:no-such-command-dpgw')).message).toContain('command not found');
    const failing = await failure(`exec:${process.execPath} -e "console.error('permission denied'); process.exit(3)"`);
    expect(failing.message).toBe(`"${process.execPath}" for the client secret exited with 3: permission denied`);
    expect((await failure('prompt')).hint).toContain('give a reference instead');
    writeFileSync(join(dir, 'empty.txt'), '');
    expect((await failure(`file:${join(dir, 'empty.txt')}`)).message).toContain('is empty');
  });

  it('asks on the terminal for prompt', async () => {
    expect(await resolveSecretReference('prompt', context({ prompt: async () => 'typed-secret' }))).toBe('typed-secret');
  });

  it('splits command lines by quoting only', () => {
    expect(splitCommandLine(`kubectl get secret backend -o "jsonpath={.data.client-secret}"`, context())).toEqual(['kubectl', 'get', 'secret', 'backend', '-o', 'jsonpath={.data.client-secret}']);
    expect(splitCommandLine(`vault kv get -field=secret 'secret/data platform/backend'`, context())).toEqual(['vault', 'kv', 'get', '-field=secret', 'secret/data platform/backend']);
    expect(() => splitCommandLine(`a "b`, context())).toThrow(/unbalanced/);
  });
});
