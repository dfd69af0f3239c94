// The one way the bench:* scripts record their figures: each owns a section of
// docs/benchmarks.md between <!-- marker --> and <!-- /marker -->, replaced on every run
// (appended the first time), so the prose around the sections stays as written.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const docPath = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));

/** Writes `section` (which starts with `<!-- marker -->` and ends with `<!-- /marker -->`) into docs/benchmarks.md. */
export function writeBenchSection(marker, section) {
  const doc = existsSync(docPath) ? readFileSync(docPath, 'utf8') : '# Benchmarks\n\nFigures written by the `npm run bench:*` scripts; re-run them to refresh.\n';
  const pattern = new RegExp(`<!-- ${marker} -->[\\s\\S]*<!-- /${marker} -->`);
  writeFileSync(docPath, pattern.test(doc) ? doc.replace(pattern, () => section) : `${doc.trimEnd()}\n\n${section}\n`);
}
