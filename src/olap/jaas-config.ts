import { STREAM_PLUGIN_CLASSES } from '../contract/olap-vocabulary.js';

/**
 * The `sasl.jaas.config` line of the contract: the SCRAM login module, marked
 * required, with the stream user and password. Values are quoted and `"` and `\`
 * escaped as Kafka's JAAS parser reads them, so no password can break the line.
 */
export function scramJaasConfig(username: string, password: string): string {
  return `${STREAM_PLUGIN_CLASSES.scramLoginModule} required username="${escapeJaas(username)}" password="${escapeJaas(password)}";`;
}

export function escapeJaas(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
}

/** Reads the options of a JAAS line back (the sandbox's store checks a table's stream user with it): `key="value"` pairs, unescaped. */
export function parseJaasOptions(line: string): Record<string, string> {
  const options: Record<string, string> = {};
  for (const match of line.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) options[match[1]!] = match[2]!.replace(/\\(.)/g, '$1');
  return options;
}
