/**
 * A step of the documented order as data: what it would do (a plan's `action`), why
 * (`reason`), what differs from the store (`difference`) and, once run, how it ended
 * (`status`). Every step module (this folder) plans and applies into this one shape; the
 * renderers, the exit codes and the CI outputs read nothing but these fields.
 */

/**
 * `reload`: the store's segments of a table reloaded after its schema gained columns, so that
 * rows stored before show them (issue #47); after the table step, whose update it follows.
 */
export const STEP_ORDER = ['enable', 'stream', 'sample', 'schema', 'table', 'reload', 'storage', 'consume', 'verify', 'dashboard'] as const;
export type StepName = (typeof STEP_ORDER)[number];

/**
 * What a step would do, or did, a closed set (docs/provision.md, "The plan"): `refused` is a
 * step the platform would reject, and every step that depends on it is `blocked`; a plan
 * holding either exits 2, since the run would fail. `replace`: a change the store cannot make
 * in place (Terraform's "forces replacement"): the table deleted and made anew, its rows lost.
 */
export const PLAN_ACTIONS = ['create', 'update', 'replace', 'delete', 'none', 'read', 'check', 'wait', 'refused', 'blocked', 'skipped', 'not-compared'] as const;
export type PlanAction = (typeof PLAN_ACTIONS)[number];

/**
 * How a run's step ended, a closed set:
 * `accepted`: the platform took it and cannot say whether it differed (a schema sent again);
 * `not-compared`: it exists and could not be read back to compare (never "unchanged");
 * `passed`: a check held; `blocked`: not run, because a step it depends on failed or was refused;
 * `sent`: its request went out and the run was interrupted before the outcome was known.
 */
export const STEP_STATUSES = ['changed', 'unchanged', 'accepted', 'not-compared', 'passed', 'skipped', 'failed', 'blocked', 'sent'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

/** A request a plan's step would send (secrets masked). */
export interface PlannedRequest {
  method: string;
  path: string;
  body?: unknown;
}

/** Facts a renderer shows, kept as data so that nothing reads them back out of the reason's words. */
export interface StepFacts {
  /** The stream step: the topic's partitions; the consume step: the partitions the table should consume. */
  partitions?: number;
  /** The consume step: the partitions the store consumes. */
  consuming?: number;
  /** The sample step: the messages held against the schema. */
  messages?: number;
  /** The dashboard step: its address. */
  url?: string;
  /** The reload step: the segments the store reloaded, of `segments`. */
  reloaded?: number;
  segments?: number;
}

export interface StepRecord {
  step: StepName;
  action: PlanAction;
  /** Set once the step has run (a plan's steps have none). */
  status?: StepStatus;
  /** Why this action, or what happened, in words. */
  reason: string;
  /** What differs from the store, as `+ / - / ~` lines. */
  difference?: string[];
  /**
   * A table step that adopts or is refused a table, and a prune's table deletion: the manifest whose
   * mark (`dpgw.manifest`) the store's table carries before the step, as the store returned it; null
   * when it carries none. A table step with an owner and action `update` takes the table over.
   */
  owner?: string | null;
  /** In a plan: the request the run would send. */
  request?: PlannedRequest;
  /** In a plan: the requests the run would send, when it is more than one (the enable step: the enablement, then the data set). */
  requests?: PlannedRequest[];
  /** In a plan: the schema inferred from the topic, as it would be sent. */
  shown?: string;
  facts?: StepFacts;
}

/** A step that does not run because `cause` was refused or failed. */
export function blockedStep(step: StepName, cause: StepName, run: boolean): StepRecord {
  return { step, action: 'blocked', ...(run ? { status: 'blocked' as const } : {}), reason: `blocked: the ${cause} step ${run ? 'failed' : 'is refused'}` };
}

/** A step not started because the run was interrupted first. */
export function notStartedStep(step: StepName): StepRecord {
  return { step, action: 'skipped', status: 'skipped', reason: 'not started: the run was interrupted' };
}

/** Whether a step's outcome changed the platform. */
export const changedSomething = (record: StepRecord): boolean => record.status === 'changed';

/** Whether a plan's step would change the platform. */
export const wouldChange = (record: StepRecord): boolean => record.action === 'create' || record.action === 'update' || record.action === 'replace' || record.action === 'delete';
