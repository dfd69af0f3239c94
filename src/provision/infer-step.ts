/**
 * A manifest entry's `schema: { infer: … }`: the schema from the first messages of the
 * data set's topic, known only once the data set is enabled. Checked like a schema file
 * before it is sent; an empty topic fails the data set before its schema and table.
 */
import type { AnalyticsSchema } from '../contract/types.js';
import { DpgwError } from '../errors/dpgw-error.js';
import { InferenceError } from '../schema-inference/infer-schema.js';
import { DEFAULT_TOPIC_SAMPLE, sampleTopic } from '../schema-inference/sample-messages.js';
import { checkedSchemaYaml } from '../schema-inference/schema-text.js';
import { EmptyTopic } from '../stream/read-topic.js';
import type { StreamConnection } from '../stream/stream-connection.js';
import { plural } from '../text/plural.js';
import type { InferSettings } from './manifest.js';

export interface InferStepInputs {
  infer: InferSettings;
  dataSet: string;
  topic: string;
  stream: StreamConnection;
  timeoutMs: number;
  /** Where the entry's `infer` is in the manifest (file:line:column). */
  where: string;
  warn: (message: string) => void;
}

export interface InferredForStep {
  schema: AnalyticsSchema;
  /** "inferred from 200 messages of topic …" */
  detail: string;
  /** The schema as `schema infer` writes it, for the plan. */
  text: string;
}

export const inferredSchemaName = (infer: InferSettings, dataSet: string): string => infer.name ?? dataSet;

export async function inferStep(inputs: InferStepInputs): Promise<InferredForStep> {
  const { infer, dataSet, topic } = inputs;
  const sampled = await sampleTopic({ ...inputs.stream, topic, limit: infer.sample ?? DEFAULT_TOPIC_SAMPLE, timeoutMs: inputs.timeoutMs }).catch((error: unknown) => {
    if (error instanceof EmptyTopic) {
      throw new DpgwError('TOPIC_EMPTY', `${error.message}: there is nothing to infer the schema of ${dataSet} from`, {
        where: inputs.where,
        hint: 'let the producers write to the topic and run provision again (it continues where it stopped), or give the schema as a file',
      });
    }
    throw error;
  });
  if (sampled.skipped.length > 0) inputs.warn(`${dataSet}: ${plural(sampled.skipped.length, 'message')} of ${topic} skipped (first at ${sampled.skipped[0]!.where}: ${sampled.skipped[0]!.reason})`);
  let inferred;
  try {
    inferred = sampled.inference.result({ name: inferredSchemaName(infer, dataSet), timeColumn: infer.timeColumn, metrics: infer.metrics });
  } catch (error) {
    if (error instanceof InferenceError) throw new DpgwError('MANIFEST_INVALID', `${error.option}: ${error.message}`, { where: inputs.where, hint: `fix schema.infer.${error.option} of ${dataSet}` });
    throw error;
  }
  for (const warning of inferred.warnings) inputs.warn(`${dataSet}: ${warning}`);
  const detail = `inferred from ${sampled.described}`;
  const text = checkedSchemaYaml(inferred.schema, [`Inferred by \`dpgw provision\` from ${sampled.described}.`]);
  return { schema: inferred.schema, detail, text };
}
