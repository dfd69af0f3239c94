import { STREAM_PLUGIN_CLASSES } from '../contract/olap-vocabulary.js';
import { holdsControlCharacter } from '../text/terminal-text.js';

/**
 * The `sasl.jaas.config` line of the contract: the SCRAM login module, marked
 * required, with the stream user and password. Values are quoted and `"` and `\`
 * escaped as Kafka's JAAS parser reads them. Kafka's parser ends a quoted value at a
 * line break, which no escape prevents: the settings refuse control characters in the
 * user and password (core-options.ts), and this refuses them again so no caller can
 * forge the store consumer's options.
 */
export function scramJaasConfig(username: string, password: string): string {
  if (holdsControlCharacter(username) || holdsControlCharacter(password)) throw new Error('a stream user or password with a control character reached the JAAS line');
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
