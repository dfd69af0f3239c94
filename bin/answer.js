// `dpgw --version`, `dpgw --help`, `dpgw <command> --help`, `dpgw help <command>` and `dpgw`
// alone, answered before commander or the start-up bundle is loaded: the build renders every
// command's help from the command tree (src/cli/help-templates.ts, into dist/cli/answers/)
// and this writes the one asked for with one write(2). Building the tree and rendering with
// commander cost `dpgw --help` about 8 ms, creating process.stdout about 4 ms, loading the
// bundle and the heap flags the rest (docs/benchmarks.md, start-up). Anything else, or no
// answer's file, is left to the program: answer() returns false.
'use strict';
const fs = require('node:fs');
const { join } = require('node:path');

const PACKAGE_ROOT_MARK = '\u0000';

/** Writes the answer for argv and returns true, or returns false when the program must run. */
function answer(argv, root) {
  const asked = question(argv);
  if (asked === undefined) return false;
  const folder = join(root, 'dist', 'cli', 'answers');
  let text;
  try {
    if (asked === true) text = fs.readFileSync(join(folder, 'version'), 'utf8');
    else {
      // `dpgw help bogus` has no file: the program says what it says of an unknown command.
      const file = asked === null ? 'usage.json' : join('help', `${['dpgw', ...asked].join('.')}.json`);
      const help = JSON.parse(fs.readFileSync(join(folder, file), 'utf8'));
      const width = helpWidth();
      text = width === 100 ? help.text.split(PACKAGE_ROOT_MARK).join(root) : helpText(help.parts, width, root);
    }
  } catch {
    return false;
  }
  write(text);
  return true;
}

/** true: the version; null: `dpgw` alone; command words: that command's help; undefined: not a question answered here. */
function question(argv) {
  const n = argv.length;
  if (n === 0 || (n === 1 && argv[0] === 'help')) return null;
  if (n === 1 && (argv[0] === '--version' || argv[0] === '-V')) return true;
  if (n > 3) return undefined;
  const last = argv[n - 1];
  // `dpgw help table create` is `dpgw table create --help` (run-cli.ts).
  const words = last === '--help' || last === '-h' ? argv.slice(0, -1) : argv[0] === 'help' ? argv.slice(1) : undefined;
  return words !== undefined && words.every((word) => /^[a-z][a-z0-9-]*$/.test(word)) ? words : undefined;
}

/**
 * The width run-cli.ts gives commander: the terminal's, at most 120; 100 when stdout is no
 * terminal. Loading node:tty costs about 1 ms, so a pipe, a file or /dev/null is told apart first.
 */
function helpWidth() {
  const stdout = fs.fstatSync(1);
  if (!stdout.isCharacterDevice() || isDevNull(stdout) || !require('node:tty').isatty(1)) return 100;
  const { columns } = process.stdout;
  return columns ? Math.min(columns, 120) : 100;
}

/** The null device, whatever its name: the same device number as /dev/null. */
function isDevNull(stat) {
  try {
    return stat.rdev === fs.statSync('/dev/null').rdev;
  } catch {
    return false;
  }
}

/** The help for a width: commander's Help.formatItem and Help.boxWrap, for the parts the build left unwrapped. */
function helpText(parts, width, root) {
  const placed = (text) => text.split(PACKAGE_ROOT_MARK).join(root);
  let text = '';
  for (const part of parts) {
    if (typeof part === 'string') text += placed(part);
    else {
      const [indent, description] = [part[0], placed(part[1])];
      if (indent === 0) text += boxWrap(description, width);
      else if (width - indent < 40) text += description.replace(/\n/g, '\n  ');
      else text += boxWrap(description, width - indent).replace(/\n/g, `\n${' '.repeat(indent)}`);
    }
  }
  return text;
}

/** commander's Help.boxWrap, for text without colours (the build refuses help with any). */
function boxWrap(text, width) {
  if (width < 40) return text;
  const lines = [];
  for (const line of text.split(/\r\n|\n/)) {
    const chunks = line.match(/[\s]*[^\s]+/g);
    if (chunks === null) {
      lines.push('');
      continue;
    }
    let sum = chunks[0];
    for (let i = 1; i < chunks.length; i++) {
      if (sum.length + chunks[i].length <= width) sum += chunks[i];
      else {
        lines.push(sum);
        sum = chunks[i].trimStart();
      }
    }
    lines.push(sum);
  }
  return lines.join('\n');
}

/** One write(2) when it takes it all; what a full non-blocking pipe refuses goes through process.stdout. */
function write(text) {
  const bytes = Buffer.from(text);
  let written = 0;
  try {
    while (written < bytes.length) written += fs.writeSync(1, bytes, written);
  } catch (error) {
    // `dpgw --help | head` closes the pipe early; that is the reader's choice, not an error.
    if (error.code === 'EPIPE') return;
    if (error.code !== 'EAGAIN') throw error;
    process.stdout.on('error', (e) => {
      if (e.code !== 'EPIPE') throw e;
    });
    process.stdout.write(bytes.subarray(written));
  }
}

module.exports = { answer, helpText };
