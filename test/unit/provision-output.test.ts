/**
 * The output formats of `dpgw provision` as pure functions of its records (src/output/provision/):
 * records in, text out. The spawned-CLI tests (test/cli/provision*.test.ts, github-actions.test.ts,
 * lifecycle-prune.test.ts) hold the whole output; these hold what each renderer does to hostile text.
 */
import { SourceLocation } from '../../src/errors/source-location.js';
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { DpgwError } from '../../src/errors/dpgw-error.js';
import { failedDataSetAnnotations } from '../../src/output/provision/annotations.js';
import { codeQualityReport } from '../../src/output/provision/code-quality.js';
import { planJson, runJson } from '../../src/output/provision/json.js';
import { junitReport } from '../../src/output/provision/junit.js';
import { markdownPlan, markdownSummary } from '../../src/output/provision/markdown.js';
import { plannedPruneCell, pruneLines, prunedCell } from '../../src/output/provision/prune-lines.js';
import { planStepSummary, runStepSummary, stoppedStepSummary } from '../../src/output/provision/step-summary.js';
import { finishedLine, stepLines } from '../../src/output/provision/terminal-progress.js';
import { terminalPlan } from '../../src/output/provision/terminal-plan.js';
import { terminalSummary } from '../../src/output/provision/terminal-summary.js';
import { itemsOf } from '../../src/provision/ci-reports.js';
import { planOutcome } from '../../src/provision/plan-outcome.js';
import type { DataSetResult } from '../../src/provision/provision-run.js';
import type { PrunePlan } from '../../src/provision/prune.js';
import { pruneSkippedBecause, runOutcomeLine } from '../../src/provision/run-outcome.js';
import type { StepRecord } from '../../src/provision/steps/step-record.js';

const style = new Chalk({ level: 0 });

function dataSet(dataset: string, steps: StepRecord[], extra: Partial<DataSetResult> = {}): DataSetResult {
  return { dataset, datasource: 'web', enablement: 'web', topic: `web.${dataset}`, schema: dataset, table: `${dataset}_REALTIME`, status: 'planned', changed: false, steps, ms: 1200, ...extra };
}

const created = dataSet('track', [
  { step: 'schema', action: 'create', reason: 'schema track is new' },
  { step: 'table', action: 'create', reason: 'table track_REALTIME is new', request: { method: 'POST', path: '/tables', body: { tableName: 'track_REALTIME' } } },
], { changed: true });
// A reason quoting a server: a run of four backticks, Markdown, a control character and a line break.
const hostileReason = 'the store said ````\u0007 **bold** | <b>x</b>\n::error::x';
const refused = dataSet('clicks', [
  { step: 'schema', action: 'refused', reason: hostileReason, difference: ['- column userId', '+ column ````id'] },
  { step: 'table', action: 'blocked', reason: 'blocked: the schema step is refused' },
]);
const pruning: PrunePlan = {
  manifest: 'shop',
  tables: ['old_REALTIME'],
  schemas: ['old'],
  steps: [
    { step: 'table', action: 'delete', reason: 'table old_REALTIME is marked by shop and no longer in it' },
    { step: 'schema', action: 'delete', reason: 'schema old is no longer used' },
  ],
  note: 'enablements are not deleted',
};

describe('terminal plan (terminal-plan.ts)', () => {
  it('shows each step, a difference, a new table whole, the prune and the totals', () => {
    const lines = terminalPlan({ planned: [created, refused], pruning, healthCheck: { path: '/actuator/health' } }, style);
    expect(lines[0]).toBe('plan: nothing was sent that changes the platform');
    expect(lines).toContain('  1. schema    create       schema track is new');
    expect(lines).toContain('       - column userId');
    expect(lines).toContain('       "tableName": "track_REALTIME"');
    expect(lines).toContain('  1. table     delete       table old_REALTIME is marked by shop and no longer in it');
    expect(lines).toContain('  after provisioning: GET /actuator/health; not UP makes the run exit 6');
    expect(lines.at(-1)).toBe('1 data set to change; 1 table and 1 schema to delete; 1 data set refused: the run would fail (exit 2)');
  });
});

describe('terminal summary (terminal-summary.ts)', () => {
  it('has a row per data set, the consume step as partitions, the health check and the prune as it ran', () => {
    const done = dataSet('track', [{ step: 'consume', action: 'wait', status: 'passed', reason: 'consuming', facts: { consuming: 2, partitions: 3 } }], { status: 'done' });
    const lines = terminalSummary({ results: [done], health: { status: 'DOWN', failing: ['mq.connection'] }, prune: { plan: pruning, steps: pruning.steps.map((s) => ({ ...s, status: 'changed' as const })) } }, style);
    expect(lines[0]).toMatch(/^DATA SET {2}TOPIC +SCHEMA +TABLE +STORAGE {2}CONSUMING {2}STATUS {2}TIME$/);
    expect(lines[1]).toContain('2 of 3');
    expect(lines).toContain('health: DOWN; not UP: mq.connection');
    expect(lines).toContain('  1. table     delete       changed      table old_REALTIME is marked by shop and no longer in it');
  });

  it("keeps the prune's result lines in columns, as its plan lines are, whatever each deletion's status", () => {
    const [table, schema] = pruning.steps;
    const ran = [
      { ...table!, status: 'failed' as const, reason: 'table old_REALTIME: HTTP 500' },
      { ...schema!, status: 'changed' as const, reason: 'schema old deleted' },
      { ...schema!, status: 'skipped' as const, reason: 'not deleted' },
    ];
    const lines = pruneLines(pruning, ran, prunedCell).filter((line) => /^ {2}\d\./.test(line));
    const reasonColumn = (line: string, reason: string) => line.indexOf(reason);
    expect(lines.map((line, i) => reasonColumn(line, ran[i]!.reason))).toEqual([lines[0]!.indexOf(ran[0]!.reason), lines[0]!.indexOf(ran[0]!.reason), lines[0]!.indexOf(ran[0]!.reason)]);
    expect(lines[1]).toBe('  2. schema    delete       changed      schema old deleted');
    // The plan's lines put the reason where the run's put the status: the action column is the same.
    const planned = pruneLines(pruning, pruning.steps, plannedPruneCell).filter((line) => /^ {2}\d\./.test(line));
    expect(planned.map((line) => line.indexOf('delete'))).toEqual(lines.slice(0, 2).map((line) => line.indexOf('delete')));
  });
});

describe('progress lines (terminal-progress.ts)', () => {
  it('says a finished data set on one line, and its steps a line each in columns', () => {
    const failed = dataSet('track', [{ step: 'table', action: 'update', status: 'failed', reason: 'refused' }], { status: 'failed', error: { message: 'HTTP 409' } });
    expect(finishedLine(failed, 3, 8)).toBe('[3/8] track (enablement web): failed in 1.2 s — table failed: HTTP 409');
    expect(stepLines(failed)).toEqual(['  table     update       failed       refused']);
  });
});

describe('Markdown (markdown.ts)', () => {
  it('fences a server-given backtick run with a longer fence, and escapes Markdown in a reason', () => {
    const lines = markdownPlan('dpgw provision --plan shop.yaml', [created, refused], undefined);
    expect(lines[0]).toBe('### dpgw provision --plan shop.yaml');
    expect(lines).toContain('| data set | schema | table | status |');
    expect(lines).toContain('| clicks | refused | blocked | planned |');
    const why = lines.find((line) => line.startsWith('**clicks**'))!;
    // The control shown as its escape, whose backslash is escaped in turn: nothing in it acts as Markdown.
    expect(why).toBe(String.raw`**clicks** — schema (refused): the store said \`\`\`\`\\u0007 \*\*bold\*\* \| \<b\>x\</b\> ::error::x`);
    // The difference holds four backticks: its fence is five, so no line of it closes the block early.
    const open = lines.indexOf('`````diff');
    expect(open).toBeGreaterThan(0);
    expect(lines.slice(open + 1, open + 4)).toEqual(['- column userId', '+ column ````id', '`````']);
  });

  it('puts the prune under the run as the terminal shows it, in a code block', () => {
    const lines = markdownSummary('dpgw provision shop.yaml: done', { results: [dataSet('track', [{ step: 'table', action: 'none', status: 'unchanged', reason: 'as in the manifest' }], { status: 'done' })], prune: { plan: pruning, steps: pruning.steps.map((s) => ({ ...s, status: 'changed' as const })) } });
    expect(lines).toEqual(['### dpgw provision shop.yaml: done', '', '| data set | table | status |', '|---|---|---|', '| track | unchanged | done |', '', '```', 'prune (tables marked dpgw.manifest: shop)', '  1. table     delete       changed      table old_REALTIME is marked by shop and no longer in it', '  2. schema    delete       changed      schema old is no longer used', '  enablements are not deleted', '```']);
  });
});

describe('GitHub step summary and outputs (step-summary.ts)', () => {
  it('titles a plan by what it would do, lists why a step is refused (masked, on one line) and counts the outputs', () => {
    const outcome = planOutcome([created, refused], pruning, false);
    const report = planStepSummary('shop.yaml', [created, refused], pruning, outcome, outcome.exitCode);
    expect(report.summary.split('\n')[0]).toBe('### dpgw provision --plan shop.yaml: 1 data set refused');
    expect(report.summary).toContain('- **clicks** — schema (refused): the store said');
    expect(report.summary).not.toContain('\n::error');
    expect(report.outputs).toEqual({ 'exit-code': 2, changes: 4, failed: 1 });
  });

  it('a run counts changed steps and failed data sets', () => {
    const failed = dataSet('clicks', [{ step: 'table', action: 'update', status: 'failed', reason: 'HTTP 409' }], { status: 'failed' });
    const done = dataSet('track', [{ step: 'table', action: 'create', status: 'changed', reason: 'created' }], { status: 'done', changed: true });
    const report = runStepSummary('shop.yaml', '1 of 2 failed', { results: [done, failed] }, 1);
    expect(report.summary).toContain('| clicks | failed | failed |');
    expect(report.summary).toContain('- **clicks** — table (failed): HTTP 409');
    expect(report.outputs).toEqual({ 'exit-code': 1, changes: 1, failed: 1 });
  });

  it('a command stopped by a refused manifest lists its problems at their places, relative to the workspace', () => {
    const error = new DpgwError('MANIFEST_INVALID', 'the manifest has 2 problems', {
      details: {
        issues: [
          { where: new SourceLocation('/ws/shop.yaml', 4, 5), field: 'dataSets[0].topic', path: ['dataSets', 0, 'topic'], message: 'required' },
          { where: new SourceLocation('/ws/shop.yaml', 9, 5), field: 'dataSets[2].schema', path: ['dataSets', 2, 'schema'], message: 'a *secret* token=abc' },
        ],
      },
    });
    const report = stoppedStepSummary('dpgw provision shop.yaml', error, error.exitCode, { workspace: '/ws' });
    expect(report.summary.split('\n')).toEqual(['### dpgw provision shop.yaml: the manifest was refused: 2 problems (exit 2)', '', '- shop.yaml:4:5: dataSets\\[0\\].topic: required', '- shop.yaml:9:5: dataSets\\[2\\].schema: a \\*secret\\* token=abc', '']);
    expect(report.outputs).toEqual({ 'exit-code': 2, changes: 0, failed: 2 });
  });
});

describe('annotations (annotations.ts)', () => {
  it('annotates the first ten failed data sets, each at its place', () => {
    const failed = Array.from({ length: 12 }, (_, i) => dataSet(`d${i}`, [], { status: 'failed', error: { message: `failure ${i}` } }));
    const annotations = failedDataSetAnnotations(failed, (r) => `shop.yaml:${r.dataset.slice(1)}:3`);
    expect(annotations).toHaveLength(10);
    expect(annotations[1]).toEqual({ where: 'shop.yaml:1:3', title: 'dpgw: data set d1 failed', message: 'failure 1' });
  });
});

describe('JUnit (junit.ts)', () => {
  it('escapes a control character, a line break and XML in a failure, and places a case at its file', () => {
    const xml = junitReport('dpgw provision shop.yaml', itemsOf([refused, created], () => new SourceLocation('/ws/shop.yaml', 7, 5)));
    expect(xml).toContain('<testsuite name="dpgw provision shop.yaml" tests="2" failures="1">');
    expect(xml).toContain('file="/ws/shop.yaml"');
    expect(xml).toContain('<failure message="schema: the store said ````\\u0007 **bold** | &lt;b&gt;x&lt;/b&gt;\\n::error::x">');
    // eslint-disable-next-line no-control-regex -- a raw control is what must not be there
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
    expect(xml).toContain('<testcase classname="dpgw provision shop.yaml" name="web/track" time="1.200" file="/ws/shop.yaml"/>');
  });
});

describe('Code Quality (code-quality.ts)', () => {
  it('reports a failed item at its path relative to the project and its line, with a stable fingerprint', () => {
    const items = itemsOf([refused, created], () => new SourceLocation('/ws/teams/shop.yaml', 7, 5));
    const issues = JSON.parse(codeQualityReport(items, '/ws', '/ws')) as Array<{ description: string; location: unknown; fingerprint: string }>;
    expect(issues).toHaveLength(1);
    expect(issues[0]!.location).toEqual({ path: 'teams/shop.yaml', lines: { begin: 7 } });
    expect(issues[0]!.description).toBe('web/clicks: schema: the store said ````\\u0007 **bold** | <b>x</b>\\n::error::x');
    expect(JSON.parse(codeQualityReport(items, '/ws', '/ws'))).toEqual(issues);
  });
});

describe('Code Quality (code-quality.ts): a committed file name', () => {
  it('with a bidirectional override or a line separator is shown escaped in its path, as JUnit shows it', () => {
    const items = itemsOf([refused], () => new SourceLocation('/ws/schemas/\u202egnp.yaml\u2028x', 3, 1));
    const [issue] = JSON.parse(codeQualityReport(items, '/ws', '/ws')) as Array<{ location: { path: string } }>;
    expect(issue!.location.path).toBe('schemas/\\u202egnp.yaml\\u2028x');
    expect(junitReport('s', items)).toContain('file="/ws/schemas/\\u202egnp.yaml\\u2028x"');
  });
});

describe('JSON (json.ts)', () => {
  it('a plan is of its format version, with the prune under its mark; a run keeps its fields in order', () => {
    const outcome = planOutcome([created], pruning, true);
    const plan = planJson('shop.yaml', { planned: [created], pruning }, outcome);
    expect(Object.keys(plan)).toEqual(['formatVersion', 'manifest', 'changes', 'actions', 'plan', 'prune']);
    expect(plan.prune).toMatchObject({ manifest: 'shop', mark: { key: 'dpgw.manifest', value: 'shop' }, note: 'enablements are not deleted' });
    expect(outcome).toMatchObject({ changes: true, exitCode: 7, refusedDataSets: 0 });
    const summary = runJson('shop.yaml', { results: [], health: { status: 'UP' } }, { ok: true, interrupted: false, changed: false, seconds: 1.5 });
    expect(Object.keys(summary)).toEqual(['formatVersion', 'manifest', 'ok', 'interrupted', 'changed', 'seconds', 'dataSets', 'health']);
  });
});

describe('outcomes (plan-outcome.ts, run-outcome.ts)', () => {
  it('counts a refused data set as refused only, never also as a change: the plan\'s totals, its JSON and the workflow outputs alike', () => {
    // As a plan holds one (data-set-steps.ts): its enablement new, its schema refused, the rest blocked, and `changed` set.
    const refusedWithNewEnablement = dataSet('clicks', [
      { step: 'enable', action: 'create', reason: 'enablement clicks is new' },
      { step: 'schema', action: 'refused', reason: 'the store would refuse it' },
      { step: 'table', action: 'blocked', reason: 'blocked: the schema step is refused' },
    ], { changed: true });
    expect(planOutcome([refusedWithNewEnablement], undefined, true)).toMatchObject({ changes: false, changingDataSets: 0, refusedDataSets: 1, changingSteps: 0, exitCode: 2 });
    expect(terminalPlan({ planned: [refusedWithNewEnablement] }, style).at(-1)).toBe('1 data set refused: the run would fail (exit 2)');
    const outcome = planOutcome([created, refusedWithNewEnablement], undefined, false);
    expect(outcome).toMatchObject({ changes: true, changingDataSets: 1, refusedDataSets: 1, changingSteps: 2 });
    expect(terminalPlan({ planned: [created, refusedWithNewEnablement] }, style).at(-1)).toBe('1 data set to change; 1 data set refused: the run would fail (exit 2)');
    expect(planStepSummary('shop.yaml', [created, refusedWithNewEnablement], undefined, outcome, outcome.exitCode).outputs).toEqual({ 'exit-code': 2, changes: 2, failed: 1 });
  });


  it('a refused step makes the plan exit 2; the outcome line and the prune decision read the results', () => {
    expect(planOutcome([refused], undefined, false)).toMatchObject({ changes: false, exitCode: 2, refusedDataSets: 1, actions: { refused: 1, blocked: 1, create: 0 } });
    const failed = dataSet('clicks', [], { status: 'failed' });
    expect(runOutcomeLine([failed, dataSet('track', [], { status: 'done' })], { interrupted: false, changed: true, pruneFailed: false })).toBe('1 of 2 failed');
    expect(runOutcomeLine([dataSet('track', [], { status: 'done', uncompared: true })], { interrupted: false, changed: false, pruneFailed: false })).toBe('done: 1 data set not compared (the gateway does not expose reads of the analytics store)');
    expect(pruneSkippedBecause([failed], false)).toBe('a data set failed, and a run that failed prunes nothing');
    expect(pruneSkippedBecause([failed], true)).toBe('the run was interrupted');
    expect(pruneLines(pruning, [], prunedCell)).toContain('  nothing to delete: no table marked by this manifest is missing from it');
  });
});
