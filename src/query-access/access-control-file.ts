/**
 * The query-engine coordinator's `access-control.properties` (contract step 1):
 * rendered from settings, and checked key by key with line and column. The
 * contract fixes two keys; the policy engine named by `access-control.name` brings
 * its own (for Trino's OPA access control, `opa.policy.uri` and friends).
 */
import { ACCESS_CONTROL_KEYS, FINE_GRAINED_ENABLED } from '../contract/constants.js';
import { closestMatch } from '../text/closest-match.js';

/** What dpgw knows of a policy engine's keys in the same file. */
interface PolicyEngineKeys {
  required: readonly string[];
  optional: readonly string[];
  /** Keys holding URLs, checked as http(s) URLs. */
  urls: readonly string[];
  /** Families of keys passed through to a client (not checked one by one). */
  prefixes: readonly string[];
}

/** Trino's OPA access control (plugin/opa, OpaConfig): the keys it reads. */
const POLICY_ENGINES: Readonly<Record<string, PolicyEngineKeys>> = {
  opa: {
    required: ['opa.policy.uri'],
    optional: [
      'opa.policy.batched-uri',
      'opa.policy.row-filters-uri',
      'opa.policy.column-masking-uri',
      'opa.policy.batch-column-masking-uri',
      'opa.log-requests',
      'opa.log-responses',
      'opa.allow-permission-management-operations',
    ],
    urls: ['opa.policy.uri', 'opa.policy.batched-uri', 'opa.policy.row-filters-uri', 'opa.policy.column-masking-uri', 'opa.policy.batch-column-masking-uri'],
    prefixes: ['opa.http-client.'],
  },
};

export const KNOWN_POLICY_ENGINES = Object.keys(POLICY_ENGINES);

/** Trino's own access controls (`default`, `allow-all`, `read-only`, `file`): none delegates to an external policy engine. */
const BUILT_IN_ACCESS_CONTROLS: readonly string[] = ['default', 'allow-all', 'read-only', 'file'];
/** External policy engines the query engine ships a plugin for, whose own keys dpgw does not check (Apache Ranger). */
const OTHER_EXTERNAL_ENGINES: readonly string[] = ['ranger'];

export interface AccessControlSettings {
  policyEngine: string;
  policyUri?: string;
  policyBatchedUri?: string;
}

/** The file's text: the contract's two keys, then the policy engine's. */
export function renderAccessControl(settings: AccessControlSettings): string {
  const lines = [
    '# The query-engine coordinator configuration of the data platform (gateway contract, step 1),',
    '# written by `dpgw access-control render`. Check a file with `dpgw access-control check FILE`.',
    '# Delegate access decisions to the external policy engine:',
    `${ACCESS_CONTROL_KEYS.fineGrained}=${FINE_GRAINED_ENABLED}`,
    `${ACCESS_CONTROL_KEYS.policyEngine}=${settings.policyEngine}`,
  ];
  if (settings.policyEngine === 'opa') {
    lines.push('# Where the policy engine decides (one decision, and batches of filter decisions):');
    if (settings.policyUri !== undefined) lines.push(`opa.policy.uri=${propertyValue(settings.policyUri)}`);
    if (settings.policyBatchedUri !== undefined) lines.push(`opa.policy.batched-uri=${propertyValue(settings.policyBatchedUri)}`);
  }
  return lines.join('\n') + '\n';
}

/**
 * A value as a properties reader reads it back unchanged: `\` doubled (a trailing one
 * would continue the line), a leading space kept, and every control character or line
 * break written as a \u escape, so no value adds a line of its own.
 */
export function propertyValue(value: string): string {
  return value
    .replace(/\\/g, '\\\\')
    .replace(/^[ \t\f]/, (space) => `\\${space}`)
    // eslint-disable-next-line no-control-regex -- the controls are what is escaped
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export interface PropertyEntry {
  key: string;
  value: string;
  line: number;
  column: number;
  valueColumn: number;
}

export interface AccessControlProblem {
  severity: 'error' | 'warning';
  line: number;
  column: number;
  key?: string;
  message: string;
  hint?: string;
  /** Policy URLs on more than one host: each decision would go to whichever engine its key names. */
  splitEngines?: true;
}

export interface AccessControlCheck {
  ok: boolean;
  /** The policy engine the file names, when it names one. */
  policyEngine?: string;
  properties: Record<string, string>;
  problems: AccessControlProblem[];
}

/**
 * Java properties as a coordinator reads them: `key=value`, `key: value` or
 * `key value`, `#`/`!` comments, a trailing backslash continues the line.
 */
export function parseProperties(text: string): PropertyEntry[] {
  const entries: PropertyEntry[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  for (let index = 0; index < lines.length; index++) {
    const raw = lines[index]!;
    const indent = raw.length - raw.trimStart().length;
    const trimmed = raw.trimStart();
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('!')) continue;
    const line = index + 1;
    let logical = trimmed;
    while (/(^|[^\\])(\\\\)*\\$/.test(logical) && index + 1 < lines.length) {
      logical = logical.slice(0, -1) + lines[++index]!.trimStart();
    }
    const separator = /^((?:[^\\=:\s]|\\.)*)\s*[=:]?\s*/.exec(logical)!;
    const key = unescape(separator[1]!);
    entries.push({ key, value: unescape(logical.slice(separator[0].length)), line, column: indent + 1, valueColumn: indent + 1 + separator[0].length });
  }
  return entries;
}

function unescape(text: string): string {
  return text.replace(/\\u([0-9a-fA-F]{4})|\\(.)/g, (_m, hex: string | undefined, char: string | undefined) => {
    if (hex !== undefined) return String.fromCharCode(parseInt(hex, 16));
    return ({ t: '\t', n: '\n', r: '\r', f: '\f' } as Record<string, string>)[char!] ?? char!;
  });
}

/** Every missing, misspelt, duplicated or wrong key; `expected` is what the settings say the file should name. */
export function checkAccessControl(text: string, expected: { policyEngine?: string } = {}): AccessControlCheck {
  const problems: AccessControlProblem[] = [];
  const { seen, properties } = readEntries(parseProperties(text), problems);
  const engineEntry = seen.get(ACCESS_CONTROL_KEYS.policyEngine);
  const engine = engineEntry?.value || undefined;
  const engineKeys = engine ? POLICY_ENGINES[engine] : undefined;
  const endOfFile = { line: Math.max(1, text.replace(/\n$/, '').split('\n').length), column: 1 };

  const misspelt = unknownKeyProblems(seen, problems);
  const missing = (key: string, why: string): void => {
    const near = misspelt.get(key);
    if (near) return; // said already, at the misspelt line
    problems.push({ severity: 'error', ...endOfFile, key, message: `${key} is missing: ${why}`, hint: `add ${key}=${key === ACCESS_CONTROL_KEYS.fineGrained ? FINE_GRAINED_ENABLED : '…'}` });
  };

  const fineGrained = seen.get(ACCESS_CONTROL_KEYS.fineGrained);
  if (!fineGrained) missing(ACCESS_CONTROL_KEYS.fineGrained, 'without it access decisions are not delegated to the policy engine');
  else if (fineGrained.value !== '' && fineGrained.value.toLowerCase() !== FINE_GRAINED_ENABLED) {
    problems.push({ severity: 'error', line: fineGrained.line, column: fineGrained.valueColumn, key: fineGrained.key, message: `${fineGrained.key} is "${fineGrained.value}"; the contract requires ${FINE_GRAINED_ENABLED}`, hint: `set ${fineGrained.key}=${FINE_GRAINED_ENABLED}` });
  }
  if (!engineEntry) missing(ACCESS_CONTROL_KEYS.policyEngine, 'it names the external policy engine');
  else if (engine) {
    const problem = policyEngineProblem(engineEntry, engine, expected.policyEngine);
    if (problem) problems.push(problem);
  }
  if (engine && engineKeys) policyEngineKeyProblems(engine, engineKeys, seen, problems, missing);
  otherEngineKeyProblems(engine, seen, problems);

  problems.sort((a, b) => a.line - b.line || a.column - b.column);
  return { ok: !problems.some((p) => p.severity === 'error'), policyEngine: engine, properties, problems };
}

/** Each key's last entry (the one the coordinator uses) and value; a repeated key, a keyless line or an empty value is a problem. */
function readEntries(entries: PropertyEntry[], problems: AccessControlProblem[]): { seen: Map<string, PropertyEntry>; properties: Record<string, string> } {
  const properties: Record<string, string> = {};
  const seen = new Map<string, PropertyEntry>();
  for (const entry of entries) {
    const earlier = seen.get(entry.key);
    if (earlier) {
      problems.push({ severity: 'error', line: entry.line, column: entry.column, key: entry.key, message: `${entry.key} is set again (first on line ${earlier.line}); the coordinator would use only this last value`, hint: 'keep one line per key' });
    }
    if (entry.key === '') problems.push({ severity: 'error', line: entry.line, column: entry.column, message: 'a line with a value but no key', hint: 'write it as key=value' });
    if (entry.value === '' && entry.key !== '') problems.push({ severity: 'error', line: entry.line, column: entry.column, key: entry.key, message: `${entry.key} has no value`, hint: 'write it as key=value' });
    seen.set(entry.key, entry);
    properties[entry.key] = entry.value;
  }
  return { seen, properties };
}

/**
 * Keys nobody reads: a misspelling of a known key is an error (the key it meant is then missing
 * too, said at the misspelt line: the map returned is meant key → misspelt entry).
 */
function unknownKeyProblems(seen: Map<string, PropertyEntry>, problems: AccessControlProblem[]): Map<string, PropertyEntry> {
  const knownKeys = [ACCESS_CONTROL_KEYS.fineGrained, ACCESS_CONTROL_KEYS.policyEngine, ...Object.values(POLICY_ENGINES).flatMap((e) => [...e.required, ...e.optional])];
  const misspelt = new Map<string, PropertyEntry>();
  for (const entry of seen.values()) {
    if (entry.key === '') continue;
    if (knownKeys.includes(entry.key) || Object.values(POLICY_ENGINES).some((e) => e.prefixes.some((p) => entry.key.startsWith(p)))) continue;
    const meant = closestMatch(entry.key, knownKeys);
    if (meant) {
      misspelt.set(meant, entry);
      problems.push({ severity: 'error', line: entry.line, column: entry.column, key: entry.key, message: `unknown key ${entry.key}`, hint: `did you mean ${meant}?` });
    } else {
      problems.push({ severity: 'warning', line: entry.line, column: entry.column, key: entry.key, message: `${entry.key} is not a key of the contract or of a policy engine dpgw knows`, hint: 'check it against the query engine documentation' });
    }
  }
  return misspelt;
}

/** What is wrong with the policy engine the file names, if anything: checked in this order, the first that holds is said. */
function policyEngineProblem(entry: PropertyEntry, engine: string, expected: string | undefined): AccessControlProblem | undefined {
  const at = { line: entry.line, column: entry.valueColumn, key: entry.key };
  if (expected && engine !== expected) {
    return { severity: 'error', ...at, message: `${entry.key} is "${engine}", but the settings name the policy engine "${expected}"`, hint: `set ${entry.key}=${expected}, or pass --policy-engine ${engine}` };
  }
  if (BUILT_IN_ACCESS_CONTROLS.includes(engine)) {
    return { severity: 'error', ...at, message: `${entry.key} is "${engine}", the query engine's own access control: the contract requires access decisions delegated to an external policy engine`, hint: `set ${entry.key}=${KNOWN_POLICY_ENGINES[0]}` };
  }
  if (POLICY_ENGINES[engine]) return undefined;
  if (engine !== expected && !OTHER_EXTERNAL_ENGINES.includes(engine)) {
    // An engine dpgw does not know counts only when the settings name it: a typo of opa must not pass.
    const near = closestMatch(engine, KNOWN_POLICY_ENGINES);
    return { severity: 'error', ...at, message: `${entry.key} is "${engine}", not a policy engine dpgw knows${near ? ` (did you mean ${near}?)` : ''}`, hint: `set ${entry.key}=${near ?? KNOWN_POLICY_ENGINES[0]}, or name your external policy engine with --policy-engine ${engine}` };
  }
  return { severity: 'warning', ...at, message: `dpgw does not know the keys of policy engine "${engine}"; only the contract's keys were checked`, hint: `known: ${KNOWN_POLICY_ENGINES.join(', ')}` };
}

/** The named engine's own keys: the required ones present, its URLs http(s) and on one host. */
function policyEngineKeyProblems(engine: string, engineKeys: PolicyEngineKeys, seen: Map<string, PropertyEntry>, problems: AccessControlProblem[], missing: (key: string, why: string) => void): void {
  for (const key of engineKeys.required) if (!seen.has(key)) missing(key, `policy engine ${engine} needs it`);
  for (const key of engineKeys.urls) {
    const entry = seen.get(key);
    if (entry && entry.value !== '' && !isHttpUrl(entry.value)) {
      problems.push({ severity: 'error', line: entry.line, column: entry.valueColumn, key, message: `${key} "${entry.value}" is not an http(s) URL`, hint: 'give the policy endpoint, e.g. http://opa:8181/v1/data/…/allow' });
    }
  }
  // One policy engine answers every decision: URLs on two hosts (a flag's host beside a profile's) are most likely a mix-up.
  const urls = engineKeys.urls.flatMap((key) => {
    const entry = seen.get(key);
    return entry && isHttpUrl(entry.value) ? [{ key, entry, origin: new URL(entry.value).host }] : [];
  });
  const other = urls.find((url) => url.origin !== urls[0]!.origin);
  if (other) {
    const first = urls[0]!;
    problems.push({ severity: 'warning', line: other.entry.line, column: other.entry.valueColumn, key: other.key, message: `${other.key} is on ${other.origin}, ${first.key} on ${first.origin}: the coordinator would ask two policy engines`, hint: 'point every policy URL at the same engine', splitEngines: true });
  }
}

/** Keys of another engine than the one named are ignored by the coordinator: say so. */
function otherEngineKeyProblems(engine: string | undefined, seen: Map<string, PropertyEntry>, problems: AccessControlProblem[]): void {
  for (const [name, keys] of Object.entries(POLICY_ENGINES)) {
    if (name === engine) continue;
    for (const key of [...keys.required, ...keys.optional]) {
      const entry = seen.get(key);
      if (entry) problems.push({ severity: 'warning', line: entry.line, column: entry.column, key, message: `${key} belongs to policy engine ${name}, but the file names ${engine ?? 'none'}`, hint: `set ${ACCESS_CONTROL_KEYS.policyEngine}=${name} or remove the key` });
    }
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
