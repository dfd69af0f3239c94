/** The one walk of a step list (src/provision/executor.ts): its rules, on a list of three steps a single command could walk. */
import { describe, expect, it } from 'vitest';
import { DpgwError } from '../../src/errors/dpgw-error.js';
import { OwnedInput, walkSideBySide, walkSteps, type Step } from '../../src/provision/executor.js';
import type { StepName, StepRecord } from '../../src/provision/steps/step-record.js';

interface Inputs {
  ran: string[];
  fail?: StepName;
  refuse?: StepName;
  /** Built once, by the schema step's account. */
  definition: OwnedInput<string>;
}

function step(name: StepName, needs: StepName[], extra: Partial<Step<Inputs>> = {}): Step<Inputs> {
  return {
    name,
    needs,
    attempts: 'create',
    stopsBefore: true,
    plan: async (inputs) => ({ step: name, action: inputs.refuse === name ? 'refused' : 'create', reason: `plan ${name}` }),
    apply: async (inputs) => {
      inputs.ran.push(name);
      if (inputs.fail === name) throw new DpgwError('UNEXPECTED_FAILURE', `${name} broke`);
      return { step: name, action: 'create', status: 'changed', reason: `applied ${name}` };
    },
    refusal: (error, mode) => (error.errorCode === 'TABLE_OWNED_ELSEWHERE' && name === 'table' ? { step: 'table', action: 'refused', ...(mode === 'apply' ? { status: 'failed' as const } : {}), reason: error.message } : undefined),
    ...extra,
  };
}

const inputs = (extra: Partial<Inputs> = {}): Inputs => ({ ran: [], definition: new OwnedInput('schema', async () => 'table definition'), ...extra });
const shown = (records: StepRecord[]) => records.map((r) => `${r.step} ${r.status ?? r.action}${r.action === 'blocked' ? ` (${r.reason})` : ''}`);

describe('walkSteps', () => {
  const list = [step('schema', []), step('table', ['schema']), step('storage', ['table'])];

  it('apply: a failure is its step\'s record, and every step that needs it is blocked by it, not run', async () => {
    const given = inputs({ fail: 'table' });
    const walked = await walkSteps('apply', list, given);
    expect(walked.outcome).toBe('failed');
    expect(walked.error?.message).toBe('table broke');
    expect(shown(walked.steps)).toEqual(['schema changed', 'table failed', 'storage blocked (blocked: the table step failed)']);
    expect(given.ran).toEqual(['schema', 'table']);
  });

  it('plan: a refusal blocks what needs it, and a step planned ahead of a step it needs is blocked when that one is refused', async () => {
    const sample = step('sample', ['stream'], { planReads: ['schema'] });
    const ahead = [step('stream', []), sample, step('schema', ['sample']), step('table', ['schema'])];
    const walked = await walkSteps('plan', ahead, inputs({ refuse: 'sample' }));
    expect(shown(walked.steps)).toEqual(['stream create', 'sample refused', 'schema blocked (blocked: the sample step is refused)', 'table blocked (blocked: the sample step is refused)']);
    // A step whose plan reads a refused step is not planned.
    const schemaRefused = await walkSteps('plan', ahead, inputs({ refuse: 'schema' }));
    expect(shown(schemaRefused.steps)).toEqual(['stream create', 'sample blocked (blocked: the schema step is refused)', 'schema refused', 'table blocked (blocked: the schema step is refused)']);
  });

  it('a stop keeps the next step that stops before from starting: the rest are not started', async () => {
    let stopped = false;
    const stopping = [step('schema', [], { apply: async () => ((stopped = true), { step: 'schema', action: 'create', status: 'changed', reason: '' }) }), step('table', ['schema']), step('storage', ['table'])];
    const walked = await walkSteps('apply', stopping, inputs(), { interrupted: () => stopped });
    expect(walked.outcome).toBe('interrupted');
    expect(shown(walked.steps)).toEqual(['schema changed', 'table skipped', 'storage skipped']);
  });

  it('a refusal found before the run: the step it belongs to is refused, every other one blocked, none run', async () => {
    const given = inputs();
    const refusal = new DpgwError('TABLE_OWNED_ELSEWHERE', 'table t belongs to manifest other');
    const walked = await walkSteps('apply', list, given, { refusedBeforeRun: refusal });
    expect([walked.outcome, walked.error]).toEqual(['failed', refusal]);
    expect(shown(walked.steps)).toEqual(['schema blocked (blocked: the table step failed)', 'table failed', 'storage blocked (blocked: the table step failed)']);
    expect(given.ran).toEqual([]);
    const planned = await walkSteps('plan', list, inputs(), { refusedBeforeRun: refusal });
    expect(shown(planned.steps)).toEqual(['schema blocked (blocked: the table step is refused)', 'table refused', 'storage blocked (blocked: the table step is refused)']);
  });

  it('an input that fails is its owner\'s failure, whichever step asked for it first', async () => {
    const given = inputs({ definition: new OwnedInput('schema', async () => Promise.reject(new DpgwError('UNEXPECTED_FAILURE', 'no definition'))) });
    const asks = step('sample', [], { apply: async (i) => ({ step: 'sample', action: 'check', status: 'passed', reason: await i.definition.get() }) });
    const walked = await walkSteps('apply', [asks, step('schema', ['sample']), step('table', ['schema'])], given);
    expect(shown(walked.steps)).toEqual(['sample blocked (blocked: the schema step failed)', 'schema failed', 'table blocked (blocked: the schema step failed)']);
    expect(walked.steps[1]!.reason).toContain('no definition');
  });
});

describe('walkSideBySide', () => {
  it('up to the concurrency at once, results in the list\'s order; a thrown error is the first item\'s in the list', async () => {
    let open = 0;
    let most = 0;
    const one = async (ms: number) => {
      most = Math.max(most, ++open);
      await new Promise((resolve) => setTimeout(resolve, ms));
      open--;
      if (ms === 0) throw new Error(`item ${ms}`);
      return ms;
    };
    const control = { concurrency: 2, notStarted: () => -1, label: String };
    expect(await walkSideBySide([30, 10, 20], one, control)).toEqual([30, 10, 20]);
    expect(most).toBe(2);
    await expect(walkSideBySide([5, 0], one, control)).rejects.toThrow('item 0');
  });
});
