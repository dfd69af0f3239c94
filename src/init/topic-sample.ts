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
import type { StreamConnection } from '../stream/stream-connection.js';

export type TopicSample = { sampled: Sampled; topic: string } | { unreadable: string; notEnabled: boolean };

export interface TopicSampleOptions {
  dataSet: string;
  enablement?: string;
  limit: number;
  /** The brokers and how to sign in, made once the topic is known (the stream password is read only then); undefined when no brokers are set. */
  stream: (() => Promise<StreamConnection>) | undefined;
  timeoutMs: number;
  trace?: (line: string) => void;
}

export async function sampleDataSetTopic(gateway: GatewayClient, options: TopicSampleOptions): Promise<TopicSample> {
  let topic: string;
  try {
    topic = await topicOfDataSet(gateway, options.dataSet, options.enablement);
  } catch (error) {
    if (error instanceof DpgwError && error.errorCode === 'DATA_SET_NOT_ENABLED') return { unreadable: `${options.dataSet} is not enabled yet, so it has no topic`, notEnabled: true };
    if (error instanceof DpgwError && error.errorCode === 'TOPIC_LABEL_MISSING') return { unreadable: error.message, notEnabled: false };
    throw error;
  }
  if (options.stream === undefined) return { unreadable: `no brokers are set to read topic ${topic} from (--broker-list, DPGW_BROKER_LIST or the profile's brokerList)`, notEnabled: false };
  try {
    const sampled = await sampleTopic({ ...(await options.stream()), topic, limit: options.limit, from: 'latest', timeoutMs: options.timeoutMs, trace: options.trace });
    return { sampled, topic };
  } catch (error) {
    if (!(error instanceof DpgwError) || error.kind === 'interrupted') throw error;
    return { unreadable: error.errorCode === 'NO_USABLE_MESSAGES' ? `topic ${topic} holds no JSON messages yet` : `topic ${topic} could not be read: ${error.message}`, notEnabled: false };
  }
}
