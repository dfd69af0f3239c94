/**
 * dpgw's prompts, all through inquirer and all on stderr (stdout stays data). Everything a
 * server named is shown escaped: a catalog label can move no cursor and forge no line.
 */
import type { CommandContext } from '../../command-kit/command-context.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { registerSecret } from '../../secrets/redaction.js';
import { serverText } from '../../text/terminal-text.js';

/** Ctrl-C at a prompt: inquirer rejects with ExitPromptError; dpgw exits 130 as a shell expects. */
async function unlessInterrupted<T>(asked: Promise<T>): Promise<T> {
  try {
    return await asked;
  } catch (error) {
    if (error instanceof Error && error.name === 'ExitPromptError') throw new DpgwError('INTERRUPTED', 'interrupted at the prompt; nothing was sent');
    throw error;
  }
}

function promptIo(context: Pick<CommandContext, 'io'>) {
  return { input: context.io.stdin, output: context.io.stderr as NodeJS.WritableStream };
}

/**
 * A hidden prompt on stderr (stdout stays data); the answer is registered as a secret.
 * No mask: a `*` per key would show the password's length to anyone watching the screen
 * or a recording of it, so nothing is echoed, as sudo and ssh do (issue #31 §3).
 */
export async function hiddenPrompt(context: Pick<CommandContext, 'io'>, message: string): Promise<string> {
  const { password } = await import('@inquirer/prompts');
  const answer = await unlessInterrupted(password({ message, mask: false }, promptIo(context)));
  registerSecret(answer);
  return answer;
}

/** Free text; `check` returns what is wrong with an answer (asked again), or undefined. */
export async function textPrompt(context: Pick<CommandContext, 'io'>, message: string, options: { default?: string; check?: (answer: string) => string | undefined } = {}): Promise<string> {
  const { input } = await import('@inquirer/prompts');
  const { check } = options;
  return unlessInterrupted(
    input(
      { message, default: options.default, prefill: 'tab', validate: check ? (answer: string) => (check(answer.trim()) === undefined ? true : serverText(check(answer.trim())!)) : undefined },
      promptIo(context),
    ),
  ).then((answer) => answer.trim());
}

/** A yes/no question on stderr; `fallback` when Enter alone is pressed (no unless said otherwise). */
export async function confirmPrompt(context: Pick<CommandContext, 'io'>, message: string, fallback = false): Promise<boolean> {
  const { confirm } = await import('@inquirer/prompts');
  return unlessInterrupted(confirm({ message, default: fallback }, promptIo(context)));
}

/** One choice of a list; `name` and `description` may come from a server and are escaped here. */
export interface Choice<Value> {
  value: Value;
  name: string;
  /** Shown once chosen (default: the name). */
  short?: string;
  description?: string;
  /** Why it cannot be chosen (shown beside it). */
  disabled?: string;
  /** checkboxPrompt: ticked at first. */
  checked?: boolean;
}

function shownChoice<Value>(choice: Choice<Value>) {
  return {
    value: choice.value,
    name: serverText(choice.name),
    short: serverText(choice.short ?? choice.name),
    ...(choice.description !== undefined ? { description: serverText(choice.description) } : {}),
    ...(choice.disabled !== undefined ? { disabled: serverText(choice.disabled) } : {}),
    ...(choice.checked !== undefined ? { checked: choice.checked } : {}),
  };
}

/** Lists this long are searched as you type; shorter ones are picked with the arrow keys. */
const SEARCH_FROM = 8;
const PAGE_SIZE = 12;

/**
 * One of a list: picked with the arrow keys, or searched as you type (a name containing the
 * typed text, any case) when the list is long or `searchable` (a live catalog's names).
 * `preferred` is where the cursor starts.
 */
export async function choosePrompt<Value>(context: Pick<CommandContext, 'io'>, message: string, choices: readonly Choice<Value>[], options: { preferred?: Value; searchable?: boolean } = {}): Promise<Value> {
  const { search, select } = await import('@inquirer/prompts');
  const { preferred } = options;
  const shown = choices.map(shownChoice);
  if (options.searchable !== true && choices.length < SEARCH_FROM) {
    return unlessInterrupted(select({ message, choices: shown, default: preferred, pageSize: PAGE_SIZE, loop: false }, promptIo(context)));
  }
  // The preferred choice first: Enter alone takes it, as a select's default would.
  const ordered = preferred === undefined ? shown : [...shown.filter((c) => c.value === preferred), ...shown.filter((c) => c.value !== preferred)];
  return unlessInterrupted(
    search(
      {
        message,
        pageSize: PAGE_SIZE,
        theme: { style: { keysHelpTip: (keys: [string, string][]) => [['type', 'to search'], ...keys].map(([key, action]) => `${key} ${action}`).join(' • ') } },
        source: (term) => {
          const wanted = (term ?? '').trim().toLowerCase();
          return wanted === '' ? ordered : ordered.filter((choice) => choice.name.toLowerCase().includes(wanted));
        },
      },
      promptIo(context),
    ),
  );
}

/** Any number of a list (space ticks, Enter accepts). */
export async function checkboxPrompt<Value>(context: Pick<CommandContext, 'io'>, message: string, choices: readonly Choice<Value>[]): Promise<Value[]> {
  const { checkbox } = await import('@inquirer/prompts');
  return unlessInterrupted(checkbox({ message, choices: choices.map(shownChoice), pageSize: PAGE_SIZE, loop: false }, promptIo(context)));
}
