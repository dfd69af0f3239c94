/**
 * The paragraph of a command's help on what it asks for at a terminal (issue #36). Loaded by
 * the start-up bundle with the command definitions: text only.
 */

/** As wide as the other paragraphs of the help. */
const WIDTH = 96;

export function askedHelp(what: string): string {
  const words = `At a terminal, a missing ${what} is asked for, then the same command with flags is printed. With --no-input, or without a terminal, it is exit 2 and nothing is sent.`.split(' ');
  const lines: string[] = [];
  for (const word of words) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last]!.length + 1 + word.length <= WIDTH) lines[last] += ` ${word}`;
    else lines.push(word);
  }
  return `\n${lines.join('\n')}\n`;
}
