/**
 * A sample of a data set's topic for `dpgw init`: read-only, the latest messages (what the
 * producers send now, as provision's sample step reads them). When the topic cannot be read
 * — the data set is not enabled, no brokers are set, they cannot be reached, the topic is
 * empty — the reason is returned, not thrown: init then takes a schema or messages file.
 */
import { topicOfDataSet } from '../catalog/resolve-data-set.js';
import { DpgwError } from '../errors/dpgw-error.js';
import type { GatewayClient } from '../gateway/gateway-client.js';
import { sampleTopic, type Sampled } from '../schema-inference/sample-messages.js';
import type { Settings } from '../settings/resolve-settings.js';
import { streamConnectionOf, streamPasswordOf, streamUserOf } from '../settings/core-options.js';
import { timeoutMs } from '../settings/setting-values.js';

export type TopicSample = { sampled: Sampled; topic: string } | { unreadable: string; notEnabled: boolean };

export interface TopicSampleOptions {
  dataSet: string;
  enablement?: string;
  limit: number;
  env: NodeJS.ProcessEnv;
  /** Asks for the stream password at a terminal. */
  prompt?: (message: string) => Promise<string>;
  trace?: (line: string) => void;
}

export async function sampleDataSetTopic(gateway: GatewayClient, settings: Settings, options: TopicSampleOptions): Promise<TopicSample> {
  let topic: string;
  try {
    topic = await topicOfDataSet(gateway, options.dataSet, options.enablement);
  } catch (error) {
    if (error instanceof DpgwError && error.errorCode === 'DATA_SET_NOT_ENABLED') return { unreadable: `${options.dataSet} is not enabled yet, so it has no topic`, notEnabled: true };
    if (error instanceof DpgwError && error.errorCode === 'TOPIC_LABEL_MISSING') return { unreadable: error.message, notEnabled: false };
    throw error;
  }
  if (settings.values.brokerList.value === undefined) return { unreadable: `no brokers are set to read topic ${topic} from (--broker-list, DPGW_BROKER_LIST or the profile's brokerList)`, notEnabled: false };
  try {
    const password = streamUserOf(settings) === undefined ? undefined : await streamPasswordOf(settings, options.env, options.prompt);
    const sampled = await sampleTopic({ ...streamConnectionOf(settings, password), topic, limit: options.limit, from: 'latest', timeoutMs: timeoutMs(settings), trace: options.trace });
    return { sampled, topic };
  } catch (error) {
    if (!(error instanceof DpgwError) || error.kind === 'interrupted') throw error;
    return { unreadable: error.errorCode === 'NO_USABLE_MESSAGES' ? `topic ${topic} holds no JSON messages yet` : `topic ${topic} could not be read: ${error.message}`, notEnabled: false };
  }
}
