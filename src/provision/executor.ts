/**
 * The one walk of a step list, in plan or apply mode (Terraform walks one graph for both):
 * each step says what it needs, and the walk decides what is blocked, what a stop leaves
 * not started, what a refusal known before the run does, and how a step's error becomes its
 * record. `provision` walks each data set's steps with it, and the data sets side by side
 * (walkSideBySide); a single command walks its own few steps the same way.
 */
import { DpgwError } from '../errors/dpgw-error.js';
import { StepInterrupted } from './steps/step-interrupted.js';
import { blockedStep, notStartedStep, STEP_ORDER, type PlanAction, type StepName, type StepRecord } from './steps/step-record.js';

/** `plan`: what each step would do, found with reads only; `apply`: the steps run. */
export type StepMode = 'plan' | 'apply';

export interface Step<Inputs> {
  readonly name: StepName;
  /** Steps the run does first, and whose failure (apply) or refusal (plan) blocks this one. Steps not in the list are left out. */
  readonly needs: readonly StepName[];
  /**
   * Steps whose plan this step's plan reads (the sample check reads the schema the schema step
   * infers): a plan walks them first, and their refusal blocks this one in a plan.
   */
  readonly planReads?: readonly StepName[];
  /** The action a failed apply is recorded with. */
  readonly attempts: PlanAction;
  /** Whether a stop (Ctrl-C) keeps it from starting; a read-only check that prepares the next step goes on. */
  readonly stopsBefore: boolean;
  plan(inputs: Inputs, done: ReadonlyMap<StepName, StepRecord>): Promise<StepRecord>;
  apply(inputs: Inputs, done: ReadonlyMap<StepName, StepRecord>): Promise<StepRecord>;
  /** This step's record of a refusal (known before the run, or thrown by its apply); undefined when the error is not its refusal. */
  refusal?(error: DpgwError, mode: StepMode): StepRecord | undefined;
  /**
   * Whether the step belongs to this walk at all, asked when its turn comes (with the records of
   * the steps before it): a step that does not is left out, with no record (the reload: only
   * after the schema step added columns to a table that exists). Undefined: always.
   */
  concerns?(inputs: Inputs, done: ReadonlyMap<StepName, StepRecord>): boolean;
}

export interface StepWalk {
  /** Every step of the list, in the documented order: the ones not run are blocked or not started. */
  steps: StepRecord[];
  outcome: 'done' | 'failed' | 'interrupted';
  error?: DpgwError;
}

export interface StepWalkControl {
  /** Set by Ctrl-C: no step that `stopsBefore` starts (apply only). */
  interrupted?: () => boolean;
  /** Found before the run (another manifest's table, a schema the store refuses): the step it belongs to is refused, every other step blocked, nothing run. */
  refusedBeforeRun?: DpgwError;
  /** Found before the run (`table create` of a table the store holds as asked): this record is the walk's, every other step left out, nothing run. */
  settledBeforeRun?: StepRecord;
}

/**
 * A value one step owns and later steps use (the table definition, built with the schema's
 * step): made once, and its failure is its owner's, whichever step asked for it first.
 */
export class OwnedInput<T> {
  private made?: Promise<T>;

  constructor(
    readonly owner: StepName,
    private readonly make: () => Promise<T>,
  ) {}

  get(): Promise<T> {
    return (this.made ??= this.make().catch((error: unknown) => {
      throw new InputFailed(this.owner, error);
    }));
  }
}

/** Thrown by OwnedInput: the owner step failed, whichever step asked. */
class InputFailed extends Error {
  constructor(
    readonly owner: StepName,
    readonly failure: unknown,
  ) {
    super(`the ${owner} step failed`);
  }
}

/** Walks the steps in the mode's order; a plan's errors are thrown, an apply's become the failing step's record. */
export async function walkSteps<Inputs>(mode: StepMode, steps: readonly Step<Inputs>[], inputs: Inputs, control: StepWalkControl = {}): Promise<StepWalk> {
  const walk = new Walk(mode, steps, inputs);
  if (control.refusedBeforeRun) return walk.refusedBeforeRun(control.refusedBeforeRun);
  if (control.settledBeforeRun) return { steps: [control.settledBeforeRun], outcome: 'done' };
  for (const step of walk.order()) {
    if (walk.has(step.name) || walk.leavesOut(step)) continue;
    const cause = walk.stoppedBy(step);
    if (cause !== undefined) {
      walk.block(step.name, cause);
      continue;
    }
    if (mode === 'apply' && step.stopsBefore && control.interrupted?.()) return walk.finish('interrupted');
    try {
      walk.record(await step[mode](inputs, walk.done()));
    } catch (error) {
      if (mode === 'plan') throw error instanceof InputFailed ? error.failure : error;
      const ended = walk.failed(step, error);
      if (ended.outcome === 'interrupted') return walk.finish('interrupted');
      walk.error ??= ended.error;
    }
  }
  return walk.finish(walk.error ? 'failed' : 'done');
}

class Walk<Inputs> {
  private readonly records = new Map<StepName, StepRecord>();
  /** The refused or failed step that keeps a step from running. */
  private readonly causes = new Map<StepName, StepName>();
  error?: DpgwError;

  constructor(
    private readonly mode: StepMode,
    private readonly steps: readonly Step<Inputs>[],
    private readonly inputs: Inputs,
  ) {}

  /** A step that does not concern this walk (Step.concerns), by the records so far: it gets no record. */
  leavesOut(step: Step<Inputs>): boolean {
    return step.concerns !== undefined && !step.concerns(this.inputs, this.records);
  }

  /** The list's order, in a plan with each step after the steps whose plan it reads. */
  order(): Step<Inputs>[] {
    if (this.mode === 'apply') return [...this.steps];
    const ordered: Step<Inputs>[] = [];
    const place = (step: Step<Inputs>) => {
      if (ordered.includes(step)) return;
      for (const read of step.planReads ?? []) {
        const before = this.steps.find((s) => s.name === read);
        if (before) place(before);
      }
      ordered.push(step);
    };
    this.steps.forEach(place);
    return ordered;
  }

  has(name: StepName): boolean {
    return this.records.has(name);
  }

  done(): ReadonlyMap<StepName, StepRecord> {
    return this.records;
  }

  record(record: StepRecord): void {
    this.records.set(record.step, record);
  }

  block(name: StepName, cause: StepName): void {
    this.causes.set(name, cause);
    this.record(blockedStep(name, cause, this.mode === 'apply'));
  }

  /** The step that keeps this one from running: a need (or in a plan, a step it reads) refused, failed or blocked. */
  stoppedBy(step: Step<Inputs>, withReads = this.mode === 'plan'): StepName | undefined {
    const needs = withReads ? [...step.needs, ...(step.planReads ?? [])] : step.needs;
    for (const need of needs) {
      const cause = this.causeOf(need);
      if (cause !== undefined) return cause;
    }
    return undefined;
  }

  private causeOf(name: StepName): StepName | undefined {
    const record = this.records.get(name);
    if (record && (this.mode === 'plan' ? record.action === 'refused' : record.status === 'failed')) return name;
    if (this.causes.has(name)) return this.causes.get(name);
    // A plan reads ahead of the run (a schema planned before the sample check it is sent after): its needs still stop it.
    const step = this.steps.find((s) => s.name === name);
    return step && this.mode === 'plan' && record ? this.stoppedBy(step, false) : undefined;
  }

  /** An apply's error as the record of the step it belongs to (the owner of an input that failed). */
  failed(current: Step<Inputs>, thrown: unknown): { outcome: 'failed' | 'interrupted'; error?: DpgwError } {
    const owner = thrown instanceof InputFailed ? (this.steps.find((s) => s.name === thrown.owner) ?? current) : current;
    const error = thrown instanceof InputFailed ? thrown.failure : thrown;
    if (error instanceof StepInterrupted) {
      this.record(error.record);
      return { outcome: 'interrupted' };
    }
    const known = error instanceof DpgwError ? error : new DpgwError('UNEXPECTED_FAILURE', (error as Error).message, { cause: error });
    if (known.kind === 'interrupted') {
      this.record({ step: owner.name, action: owner.attempts, status: 'skipped', reason: known.message });
      return { outcome: 'interrupted' };
    }
    this.record(owner.refusal?.(known, 'apply') ?? { step: owner.name, action: owner.attempts, status: 'failed', reason: known.toLine() });
    if (owner !== current) this.block(current.name, owner.name);
    return { outcome: 'failed', error: known };
  }

  /** Nothing of the list runs: the step the refusal belongs to is refused, every other one blocked by it. */
  refusedBeforeRun(refusal: DpgwError): StepWalk {
    const refused = this.steps.map((step) => ({ step, record: step.refusal?.(refusal, this.mode) })).find(({ record }) => record !== undefined);
    if (!refused) throw new Error(`no step of the list takes the refusal ${refusal.errorCode}`);
    this.record(refused.record!);
    for (const step of this.steps) if (step !== refused.step && !this.leavesOut(step)) this.block(step.name, refused.step.name);
    return { steps: this.inOrder(), outcome: this.mode === 'apply' ? 'failed' : 'done', ...(this.mode === 'apply' ? { error: refusal } : {}) };
  }

  finish(outcome: StepWalk['outcome']): StepWalk {
    for (const step of this.steps) {
      if (!this.records.has(step.name) && this.leavesOut(step)) continue;
      // A plan reads ahead: a step planned before a step it needs was refused is blocked all the same.
      const cause = this.records.get(step.name)?.action === 'refused' ? undefined : this.stoppedBy(step);
      if (cause !== undefined && (this.mode === 'plan' || !this.records.has(step.name))) this.block(step.name, cause);
      else if (!this.records.has(step.name)) this.record(notStartedStep(step.name));
    }
    return { steps: this.inOrder(), outcome, ...(this.error ? { error: this.error } : {}) };
  }

  private inOrder(): StepRecord[] {
    return [...this.records.values()].sort((a, b) => STEP_ORDER.indexOf(a.step) - STEP_ORDER.indexOf(b.step));
  }
}

export interface SideBySide<Item, Result> {
  concurrency: number;
  /** A result that ends the walk: no new item starts (--fail-fast). */
  stopsAll?: (result: Result) => boolean;
  /** Set by Ctrl-C: no new item starts. */
  interrupted?: () => boolean;
  /** The result of an item never started. */
  notStarted: (item: Item) => Result;
  label: (item: Item) => string;
  onProgress?: (done: number, total: number, current: string) => void;
  onFinished?: (result: Result, done: number, total: number) => void;
}

/**
 * Items side by side up to a concurrency, each result at its item's place. An item that
 * throws (a plan's error) stops new ones from starting; once those under way end, the error
 * of the first such item in the list is thrown, whatever finished first.
 */
export async function walkSideBySide<Item, Result>(items: readonly Item[], one: (item: Item) => Promise<Result>, control: SideBySide<Item, Result>): Promise<Result[]> {
  const results = items.map(control.notStarted);
  const errors = new Map<number, unknown>();
  let next = 0;
  let done = 0;
  let stop = false;
  const worker = async () => {
    for (;;) {
      if (stop || control.interrupted?.()) return;
      const index = next++;
      if (index >= items.length) return;
      const item = items[index]!;
      control.onProgress?.(done, items.length, control.label(item));
      try {
        results[index] = await one(item);
      } catch (error) {
        errors.set(index, error);
        stop = true;
        return;
      }
      done++;
      control.onFinished?.(results[index]!, done, items.length);
      control.onProgress?.(done, items.length, control.label(item));
      if (control.stopsAll?.(results[index]!)) stop = true;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(control.concurrency, items.length)) }, worker));
  if (errors.size) throw errors.get(Math.min(...errors.keys()));
  return results;
}
