/**
 * The differential test (issue 45, part 6): dpgw's schema check against the analytics store's own
 * reader and upload checks (test/store/harness/SchemaVerdict.java, run against release 0.11.0 and
 * the newest release Maven Central resolves), on the store's example schemas from its pinot-tools
 * jar and on a few hundred generated schemas. dpgw refuses a schema iff it finds a problem.
 *
 * Where the two releases agree, dpgw agrees with them. Where they disagree, dpgw follows the
 * newest release (what it refuses, dpgw refuses), and where only the older release refuses, dpgw
 * says so in a warning (docs/store-schemas.md, "Proof").
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLocatedDocument } from '../../src/olap/located-document.js';
import { isWarning, issueLine, validateSchema } from '../../src/olap/schema-validation.js';
import { exampleName, storeExampleFiles } from '../helpers/store-examples.js';
import { generatedSchemaCases } from './schema-cases.js';
import { schemaHarnesses, storeVerdicts, type StoreVerdict } from './store-verdicts.js';

/** Cases dpgw refuses by a rule of its own, stricter than the store's, each with why. */
const DPGW_OWN_RULES: Record<string, string> = {
  'no columns': 'a schema with no columns provisions nothing; dpgw refuses it (docs/store-schemas.md)',
  'schemaName blank': "dpgw's platform names (docs/tables.md#schemas)",
  'schemaName a number': "dpgw's platform names are text (the store's Jackson reads 5 as \"5\")",
  'column name empty': 'a column needs a name to be queried; the store takes "" (docs/store-schemas.md)',
  // dpgw checks a transform's form and arguments, not that the store knows its function (FunctionRegistry).
  'transform unknown function': "the store's function registry is not mirrored: dpgw warns that it does not check function names",
};

interface Judged {
  name: string;
  dpgw: { refused: boolean; problems: string[]; warnings: string[] };
  older: StoreVerdict;
  newest: StoreVerdict;
}

function dpgwVerdict(text: string, file: string): Judged['dpgw'] {
  let issues;
  try {
    issues = validateSchema(parseLocatedDocument(text, file)).issues;
  } catch (error) {
    return { refused: true, problems: [String((error as Error).message)], warnings: [] };
  }
  const problems = issues.filter((issue) => !isWarning(issue)).map(issueLine);
  return { refused: problems.length > 0, problems, warnings: issues.filter(isWarning).map(issueLine) };
}

const shown = (verdict: StoreVerdict) => (verdict.accepted ? 'accepted' : `refused (${verdict.message?.slice(0, 160)})`);

function judgeAll(): { judged: Judged[]; versions: [string, string] } {
  const work = mkdtempSync(join(tmpdir(), 'dpgw-schema-differential-'));
  const examples = storeExampleFiles();
  const corpus = [
    ...examples.schemas.map((file) => ({ name: exampleName(file, examples.root), file, text: readFileSync(file, 'utf8') })),
    ...generatedSchemaCases().map((generated, index) => {
      const file = join(work, `case-${String(index).padStart(3, '0')}.json`);
      writeFileSync(file, generated.text);
      return { name: generated.name, file, text: generated.text };
    }),
  ];
  const [older, newest] = schemaHarnesses();
  const files = corpus.map((entry) => entry.file);
  const olderVerdicts = storeVerdicts(older!, files);
  const newestVerdicts = storeVerdicts(newest!, files);
  return {
    versions: [older!.version, newest!.version],
    judged: corpus.map((entry) => ({ name: entry.name, dpgw: dpgwVerdict(entry.text, entry.file), older: olderVerdicts.get(entry.file)!, newest: newestVerdicts.get(entry.file)! })),
  };
}

describe("dpgw's schema check against the store's own reader and upload checks", () => {
  const { judged, versions } = judgeAll();
  const [olderVersion, newestVersion] = versions;

  it('judges the corpus: the store examples and the generated schemas', () => {
    expect(judged.length).toBeGreaterThanOrEqual(17 + 300);
    const agree = judged.filter((entry) => entry.older.accepted === entry.newest.accepted);
    const dpgwAgreesWithBoth = agree.filter((entry) => entry.dpgw.refused === !entry.newest.accepted).length;
    const onlyOlderRefuses = judged.filter((entry) => entry.newest.accepted && !entry.older.accepted);
    const onlyNewestRefuses = judged.filter((entry) => !entry.newest.accepted && entry.older.accepted);
    const dpgwAgrees = judged.filter((entry) => entry.dpgw.refused === !entry.newest.accepted).length;
    // The figures docs/store-schemas.md quotes under "Proof".
    console.log(
      `[schema-differential] ${judged.length} schemas (${judged.filter((entry) => entry.name.startsWith('examples/')).length} store examples); ` +
        `Pinot ${olderVersion} and ${newestVersion} agree on ${agree.length}, dpgw with both on ${dpgwAgreesWithBoth}; ` +
        `only ${olderVersion} refuses ${onlyOlderRefuses.length} (dpgw takes ${onlyOlderRefuses.filter((entry) => !entry.dpgw.refused && entry.dpgw.warnings.length > 0).length} with a warning); ` +
        `only ${newestVersion} refuses ${onlyNewestRefuses.length} (dpgw refuses ${onlyNewestRefuses.filter((entry) => entry.dpgw.refused).length}); ` +
        `dpgw agrees with ${newestVersion} on ${dpgwAgrees}; ${Object.keys(DPGW_OWN_RULES).length} listed exceptions`,
    );
  });

  it('agrees with the store on every case, naming each disagreement', () => {
    const disagreements: string[] = [];
    for (const entry of judged) {
      const stores = `Pinot ${olderVersion}: ${shown(entry.older)}; Pinot ${newestVersion}: ${shown(entry.newest)}`;
      const dpgw = entry.dpgw.refused ? `refused (${entry.dpgw.problems.join(' | ').slice(0, 240)})` : `accepted${entry.dpgw.warnings.length ? ` with warnings (${entry.dpgw.warnings.join(' | ').slice(0, 240)})` : ''}`;
      const own = DPGW_OWN_RULES[entry.name];
      if (own !== undefined) {
        if (entry.dpgw.refused === !entry.newest.accepted) disagreements.push(`${entry.name}: listed as an exception (${own}), but dpgw agrees with the store now: drop it from the list`);
        continue;
      }
      // What the newest release refuses, dpgw refuses; what it accepts, dpgw accepts.
      if (entry.dpgw.refused !== !entry.newest.accepted) disagreements.push(`${entry.name}: dpgw ${dpgw}; ${stores}`);
      // Accepted by the newest, refused by the older: dpgw warns.
      else if (entry.newest.accepted && !entry.older.accepted && entry.dpgw.warnings.length === 0) disagreements.push(`${entry.name}: dpgw accepted it with no warning, but ${stores}`);
    }
    expect(disagreements, `${disagreements.length} disagreements:\n${disagreements.join('\n')}`).toEqual([]);
  });
});
