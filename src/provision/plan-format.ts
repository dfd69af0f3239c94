/**
 * The plan's JSON (`dpgw provision --plan --json`) as a versioned format, described once
 * with zod: the JSON Schema in docs/provision-plan.schema.json is made from it
 * (`npm run schema:manifest`), and the tests check real plans against it. A field may be
 * added within a version; one is removed or changes its meaning only with a new version.
 */
import { z } from 'zod';
import { PLAN_ACTIONS, STEP_ORDER } from './steps/step-record.js';

export const PLAN_FORMAT_VERSION = 1;

const step = z.looseObject({
  step: z.enum(STEP_ORDER).describe('the step of the documented order'),
  action: z.enum(PLAN_ACTIONS).describe('what the step would do; refused and blocked mean the run would fail'),
  reason: z.string().describe('why this action, in words'),
  difference: z.array(z.string()).optional().describe('what differs from the store, as + / - / ~ lines'),
  owner: z.string().nullable().optional().describe("a table step that adopts (update) or is refused (refused) a table, and a prune's table deletion: the manifest whose mark (metadata.customConfigs[\"dpgw.manifest\"]) the store's table carries, as the store returned it; null when it carries none"),
  request: z.looseObject({ method: z.string(), path: z.string(), body: z.unknown().optional() }).optional().describe('the request the run would send (secrets masked)'),
  shown: z.string().optional().describe('an inferred schema, as it would be sent'),
  facts: z.looseObject({ partitions: z.number().optional(), consuming: z.number().optional(), messages: z.number().optional(), url: z.string().optional(), reloaded: z.number().optional(), segments: z.number().optional() }).optional().describe('facts a renderer shows (partitions, messages sampled, a dashboard address, segments reloaded)'),
});

const dataSet = z.looseObject({
  dataset: z.string(),
  datasource: z.string(),
  enablement: z.string(),
  topic: z.string().optional(),
  schema: z.string(),
  table: z.string(),
  status: z.literal('planned'),
  changed: z.boolean().describe('a step would change something'),
  uncompared: z.boolean().describe('a step could not be compared with the store'),
  steps: z.array(step),
  ms: z.number(),
});

export const planDocument = z.looseObject({
  formatVersion: z.literal(PLAN_FORMAT_VERSION).describe('the version of this format'),
  manifest: z.string(),
  changes: z.boolean().describe('anything would change outside a refused data set (nothing of a refused one is sent), or could not be compared'),
  actions: z.record(z.enum(PLAN_ACTIONS), z.number().int().nonnegative()).describe('how many steps would take each action, zeros included'),
  plan: z.array(dataSet),
  prune: z
    .looseObject({
      manifest: z.string().describe("the manifest's name, the mark looked for"),
      mark: z.looseObject({ key: z.string(), value: z.string() }).describe('the key in a table\'s metadata.customConfigs, and its value'),
      steps: z.array(step).describe('a delete step per table, then per schema, in the order they would be deleted'),
      note: z.string().describe('what a prune never deletes (enablements)'),
    })
    .optional()
    .describe('with --prune: what would be deleted'),
  healthCheck: z.looseObject({ path: z.string() }).optional(),
});

export function planJsonSchema(): Record<string, unknown> {
  return { ...z.toJSONSchema(planDocument), title: `dpgw provision plan, format ${PLAN_FORMAT_VERSION}` };
}
