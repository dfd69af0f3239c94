/**
 * `--version` and every help are written by bin/answer.js from what the build rendered
 * (dist/cli/answers/, src/cli/help-templates.ts), without commander. Both ends are held to
 * commander's own rendering here: the stored answers are what the sources render now (a
 * definition changed without a rebuild fails), and bin/answer.js wraps them, for every
 * terminal width, to the very text commander writes at that width.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerFile, helpAnswers, PACKAGE_ROOT_MARK, type HelpAnswer, type HelpPart } from '../../src/cli/help-templates.js';
import { runCli } from '../../src/cli/run-cli.js';
import { atTerminal, screen } from '../helpers/at-terminal.js';
import { cleanEnv, ROOT } from '../helpers/run-dpgw.js';

const { helpText } = createRequire(import.meta.url)('../../bin/answer.js') as { helpText: (parts: HelpPart[], width: number, root: string) => string };
const root = ROOT.replace(/\/$/, '');
const folder = join(ROOT, 'dist', 'cli', 'answers');
const answers = await helpAnswers();
const stored = (file: string) => JSON.parse(readFileSync(join(folder, file), 'utf8')) as HelpAnswer;

/** What runCli writes for argv on a terminal of `columns` (undefined: no terminal). */
async function commanderHelp(argv: string[], columns?: number): Promise<string> {
  let out = '';
  const stdout = { write: (chunk: string) => (out += chunk), isTTY: columns !== undefined, columns };
  await runCli(argv, { stdout, stderr: { write: () => undefined }, stdin: process.stdin, env: {}, cwd: ROOT });
  return out;
}

describe('the answers the build stored', () => {
  it('are what the command definitions render now, one file for each command and no other (rebuild after changing a definition)', () => {
    expect(readFileSync(join(folder, 'version'), 'utf8')).toBe(`${answers.version}\n`);
    expect(stored('usage.json')).toEqual(answers.usage);
    for (const [words, answer] of Object.entries(answers.help)) expect(stored(answerFile(words)), `dpgw ${words} --help`).toEqual(answer);
    expect(readdirSync(join(folder, 'help')).sort()).toEqual(Object.keys(answers.help).map((words) => answerFile(words).replace(/^help\//, '')).sort());
  });

  it('name the package folder by a mark that bin/answer.js replaces with the installed one', () => {
    expect(answers.help['']!.text).toContain(`Docs: ${PACKAGE_ROOT_MARK}/README.md`);
    expect(JSON.stringify(answers)).not.toContain(root);
  });
});

describe('bin/answer.js wraps the help as commander does', () => {
  const cases = [...Object.entries(answers.help).map(([words, answer]) => [[...words.split(' ').filter(Boolean), '--help'], answer] as const), [[], answers.usage] as const];

  it.each(cases.map(([argv, answer]) => [argv.join(' ') || '(dpgw alone)', argv, answer] as const))('dpgw %s, at every terminal width and without a terminal', async (_, argv, answer) => {
    const placed = (text: string) => text.split(PACKAGE_ROOT_MARK).join(root);
    expect(placed(answer.text)).toBe(await commanderHelp([...argv]));
    expect(helpText(answer.parts, 100, root)).toBe(placed(answer.text));
    for (let columns = 1; columns <= 130; columns++) expect(helpText(answer.parts, Math.min(columns, 120), root), `${columns} columns`).toBe(await commanderHelp([...argv], columns));
  });

  it('at a terminal of 120 columns, through the binary', async () => {
    const result = await atTerminal(['table', 'create', '--help'], { env: cleanEnv(), steps: [] });
    expect(result.code).toBe(0);
    expect(screen(result.stdout)).toBe(await commanderHelp(['table', 'create', '--help'], 120));
    expect(await commanderHelp(['table', 'create', '--help'], 120)).not.toBe(await commanderHelp(['table', 'create', '--help']));
  });
});
