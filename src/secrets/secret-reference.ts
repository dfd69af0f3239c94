/**
 * Secret references: where a secret comes from, never the secret itself.
 *
 *   env:NAME               an environment variable
 *   file:PATH              a file (~ expands; one trailing newline dropped)
 *   exec:COMMAND ARGS…     a command's stdout, trimmed; run without a shell
 *   base64:<reference>     the inner reference's value, base64-decoded
 *                          (`base64:exec:kubectl get secret … -o jsonpath={.data.x}`)
 *   prompt                 ask on the terminal (hidden)
 *
 * Every value read is registered for redaction before it is returned.
 */
import { spawn } from 'node:child_process';
import { MB, readRegularFile } from '../files/read-regular-file.js';
import { homedir } from 'node:os';
import { DpgwError } from '../errors/dpgw-error.js';
import { registerSecret } from './redaction.js';

export interface SecretReferenceContext {
  /** Where the reference was given: a flag, a variable, file:line:column. */
  where: string;
  env: NodeJS.ProcessEnv;
  /** What the secret is, for messages and the prompt: "client secret". */
  label: string;
  /** A hidden prompt, when a person is there to answer it. */
  prompt?: (message: string) => Promise<string>;
  /** Milliseconds an exec: command may run. */
  execTimeoutMs?: number;
}

const SCHEMES = 'env:NAME, file:PATH, exec:COMMAND ARGS…, base64:<reference> or prompt';

/** The one test of "is this a reference, not the secret": manifests, `config set`, `config show` and resolution all ask here. */
export function isSecretReference(text: string): boolean {
  return /^(env|file|exec|base64):/.test(text.trim()) || text.trim() === 'prompt';
}

/** Why a value cannot stand where a reference belongs; it never repeats the value, which is then the secret itself. */
export function notAReference(label: string): string {
  return `the ${label} must be a secret reference (${SCHEMES}), not the secret itself`;
}

export async function resolveSecretReference(reference: string, context: SecretReferenceContext): Promise<string> {
  const value = await resolve(reference.trim(), context);
  if (value === '') throw new DpgwError('SECRET_UNAVAILABLE', `the ${context.label} from ${describe(reference)} is empty`, { where: context.where, hint: 'check that the source holds the secret' });
  registerSecret(value);
  return value;
}

async function resolve(reference: string, context: SecretReferenceContext): Promise<string> {
  const colon = reference.indexOf(':');
  const scheme = colon < 0 ? reference : reference.slice(0, colon);
  const rest = colon < 0 ? '' : reference.slice(colon + 1);
  switch (scheme) {
    case 'env': {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(rest)) throw bad(`"${rest}" is not an environment variable name`, context);
      const value = context.env[rest];
      if (value === undefined) throw new DpgwError('SECRET_UNAVAILABLE', `the ${context.label} reference env:${rest} names a variable that is not set`, { where: context.where, hint: `export ${rest}=… or change the reference` });
      return value;
    }
    case 'file': {
      if (rest === '') throw bad('file: needs a path', context);
      const path = rest.startsWith('~/') ? `${context.env.HOME || homedir()}${rest.slice(1)}` : rest;
      return readRegularFile(path, { what: `${context.label} file`, maxBytes: MB, where: context.where, hint: 'check the path and its permissions', missingCode: 'SECRET_UNAVAILABLE', unreadableCode: 'SECRET_UNAVAILABLE' }).replace(/\r?\n$/, '');
    }
    case 'exec':
      return runCommand(splitCommandLine(rest, context), context);
    case 'base64': {
      const inner = await resolve(rest, context);
      const compact = inner.replace(/\s+/g, '');
      if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact)) throw new DpgwError('SECRET_UNAVAILABLE', `the ${context.label} from ${describe(rest)} is not base64`, { where: context.where, hint: 'drop the base64: prefix if the value is already plain' });
      return Buffer.from(compact, 'base64').toString('utf8').replace(/\r?\n$/, '');
    }
    case 'prompt': {
      if (!context.prompt) {
        throw new DpgwError('SECRET_UNAVAILABLE', `the ${context.label} has to be asked for, but there is no terminal to ask on`, { where: context.where, hint: `give a reference instead: ${SCHEMES}` });
      }
      return context.prompt(`${capitalise(context.label)}:`);
    }
    default:
      // Not a reference: most likely the secret itself, so it is not repeated.
      throw new DpgwError('SECRET_REFERENCE_INVALID', notAReference(context.label), { where: context.where, hint: 'see docs/secrets.md; a value from the environment variable itself needs no reference' });
  }
}

function bad(message: string, context: SecretReferenceContext): DpgwError {
  return new DpgwError('SECRET_REFERENCE_INVALID', `${message} (for the ${context.label})`, { where: context.where, hint: `use ${SCHEMES}; see docs/secrets.md` });
}

/**
 * Splits a command line into words the way a POSIX shell would for quoting only:
 * '…' and "…" group, backslash escapes; nothing is expanded and no shell runs.
 */
export function splitCommandLine(line: string, context: SecretReferenceContext): string[] {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      // As in a POSIX shell: inside "…" a backslash escapes only " \ $ and `.
      else if (c === '\\' && quote === '"' && /["\\$`]/.test(line[i + 1] ?? '')) current += line[++i];
      else current += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      current += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else {
      current += c;
      inWord = true;
    }
  }
  if (quote) throw bad(`unbalanced ${quote} in exec: command`, context);
  if (inWord) words.push(current);
  if (words.length === 0) throw bad('exec: needs a command', context);
  return words;
}

function runCommand(words: string[], context: SecretReferenceContext): Promise<string> {
  const [command, ...args] = words as [string, ...string[]];
  const timeoutMs = context.execTimeoutMs ?? 30_000;
  return new Promise((resolvePromise, reject) => {
    // No shell: the reference is run as written, and nothing secret goes on a command line.
    const child = spawn(command, args, { env: context.env, stdio: ['ignore', 'pipe', 'pipe'], shell: false, timeout: timeoutMs });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (error: NodeJS.ErrnoException) => {
      reject(
        new DpgwError('SECRET_UNAVAILABLE', `cannot run "${command}" for the ${context.label}: ${error.code === 'ENOENT' ? 'command not found' : error.message}`, {
          where: context.where,
          hint: 'check the exec: reference; the command runs without a shell, so pipes and $VARS do not work',
        }),
      );
    });
    child.on('close', (code, signal) => {
      if (code === 0) {
        registerSecret(stdout.trim());
        resolvePromise(stdout.trim());
        return;
      }
      registerSecret(stdout.trim());
      const firstLine = stderr.trim().split('\n')[0] ?? '';
      const why = signal === 'SIGTERM' ? `did not finish within ${timeoutMs / 1000} s` : `exited with ${code}${firstLine ? `: ${firstLine}` : ''}`;
      reject(new DpgwError('SECRET_UNAVAILABLE', `"${command}" for the ${context.label} ${why}`, { where: context.where, hint: 'run the command by hand to see what it needs' }));
    });
  });
}

function describe(reference: string): string {
  const colon = reference.indexOf(':');
  const scheme = colon < 0 ? reference : reference.slice(0, colon);
  return scheme === 'exec' ? `exec:${reference.slice(5).split(/\s+/)[0]} …` : reference;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
