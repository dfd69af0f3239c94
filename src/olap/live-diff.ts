/**
 * What differs between what a manifest asks for and what the analytics store holds,
 * compared the way the store reads things back (measured on Pinot 0.11, docs/gateway-api.md):
 * only the fields dpgw sets are compared — the store adds many defaults of its own —, a
 * table comes back wrapped by its type and named `<name>_REALTIME`, numbers of
 * segmentsConfig come back as strings, and date-time specs lose `notNull`. So a run that
 * just applied the manifest plans no change. Secrets are compared, never shown.
 *
 * The live side is the server's: its names, types and values are compared as they are and
 * shown only escaped (serverText), so a difference line is always one line of dpgw's — no
 * column name can end it and forge the next (`::error …` in a CI log, a closing fence in
 * a Markdown plan).
 */
import type { AnalyticsSchema, RealtimeTableDefinition } from '../contract/types.js';
import { isSecretKey, MASK, maskJaasLine } from '../secrets/redaction.js';
import { serverText } from '../text/terminal-text.js';

export interface FieldChange {
  /** `segmentsConfig.retentionTimeValue`, `tableIndexConfig.streamConfigs["stream.kafka.topic.name"]`. */
  path: string;
  /** The path's keys as the manifest and the store name them (array items as `[0]`), unescaped: what a rule matches on (replacement-fields.ts), never shown. */
  keys: string[];
  /** `+` the store lacks it, `-` the store has it and the manifest not, `~` it differs. */
  change: '+' | '-' | '~';
  from?: unknown;
  to?: unknown;
}

/** The fields of the desired table that the live one does not hold as asked. */
export function diffTable(desired: RealtimeTableDefinition, live: Record<string, unknown>, options: { secretsKnown?: boolean } = {}): FieldChange[] {
  const held = (typeof live.REALTIME === 'object' && live.REALTIME !== null ? live.REALTIME : live) as Record<string, unknown>;
  const changes: FieldChange[] = [];
  walk(desired as unknown as Record<string, unknown>, held, [], changes, options.secretsKnown !== false);
  return changes;
}

function walk(desired: unknown, live: unknown, path: string[], changes: FieldChange[], secretsKnown: boolean): void {
  if (Array.isArray(desired)) {
    const held = Array.isArray(live) ? live : [];
    desired.forEach((item, index) => walk(item, held[index], [...path, `[${index}]`], changes, secretsKnown));
    for (let index = desired.length; index < held.length; index++) changes.push({ path: pathText([...path, `[${index}]`]), keys: [...path, `[${index}]`], change: '-', from: shown(path, held[index]) });
    return;
  }
  if (desired !== null && typeof desired === 'object') {
    const held = live !== null && typeof live === 'object' && !Array.isArray(live) ? (live as Record<string, unknown>) : {};
    for (const [key, value] of Object.entries(desired)) walk(value, held[key], [...path, key], changes, secretsKnown);
    return;
  }
  if (live === undefined) {
    changes.push({ path: pathText(path), keys: path, change: '+', to: shown(path, desired) });
    return;
  }
  // A plan that read no stream password compares the rest of a secret's line, not the secret.
  const compared = secretsKnown ? [desired, live] : [shown(path, desired), shown(path, live)];
  if (!sameValue(path, compared[0], compared[1])) changes.push({ path: pathText(path), keys: path, change: '~', from: shown(path, live), to: shown(path, desired) });
}

/** Equal as the store means it: `7` and `"7"`, `true` and `"true"`; the table's name with or without the type suffix. */
function sameValue(path: string[], desired: unknown, live: unknown): boolean {
  if (path.length === 1 && path[0] === 'tableName') return String(live).replace(/_(REALTIME|OFFLINE)$/, '') === String(desired);
  if (desired === live) return true;
  const scalar = (value: unknown) => typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string';
  return scalar(desired) && scalar(live) && String(desired) === String(live);
}

/** A secret's value is never shown: a JAAS line keeps its shape with the password masked, other secrets are `***`. */
function shown(path: string[], value: unknown): unknown {
  const key = path[path.length - 1] ?? '';
  if (typeof value !== 'string' || !isSecretKey(key)) return value;
  return /^sasl\.jaas\.config$/i.test(key) ? maskJaasLine(value) : MASK;
}

function pathText(path: string[]): string {
  return serverText(path.map((part, index) => (part.startsWith('[') ? part : /^[A-Za-z_][A-Za-z0-9_]*$/.test(part) ? `${index === 0 ? '' : '.'}${part}` : `[${JSON.stringify(part)}]`)).join(''));
}

/** Names and types as the store and the manifest give them, every control character escaped (serverText). */
export interface SchemaDiff {
  added: Array<{ name: string; group: string; dataType: string }>;
  removed: Array<{ name: string; group: string; dataType: string }>;
  /** The type or group of a column changed, or a date-time column's format or granularity. */
  changed: Array<{ name: string; from: string; to: string }>;
}

const GROUPS = ['dimensionFieldSpecs', 'metricFieldSpecs', 'dateTimeFieldSpecs'] as const;

/** Columns added, removed and changed between the store's schema and the desired one. */
export function diffSchema(desired: AnalyticsSchema, live: Record<string, unknown>): SchemaDiff {
  const columns = (schema: Record<string, unknown>) => {
    const found = new Map<string, { group: string; dataType: string; describe: string }>();
    for (const group of GROUPS) {
      const specs = schema[group];
      if (!Array.isArray(specs)) continue;
      for (const spec of specs as Array<Record<string, unknown>>) {
        const dateTime = group === 'dateTimeFieldSpecs' ? ` ${String(spec.format)} ${String(spec.granularity)}` : '';
        found.set(String(spec.name), { group, dataType: String(spec.dataType), describe: `${String(spec.dataType)} (${group.replace('FieldSpecs', '')})${dateTime}` });
      }
    }
    return found;
  };
  const wanted = columns(desired as unknown as Record<string, unknown>);
  const held = columns(live);
  const diff: SchemaDiff = { added: [], removed: [], changed: [] };
  // Compared as sent, kept escaped: what the store named is text to show, never a line break.
  for (const [name, column] of wanted) {
    const existing = held.get(name);
    if (!existing) diff.added.push({ name: serverText(name), group: column.group, dataType: serverText(column.dataType) });
    else if (existing.describe !== column.describe) diff.changed.push({ name: serverText(name), from: serverText(existing.describe), to: serverText(column.describe) });
  }
  for (const [name, column] of held) if (!wanted.has(name)) diff.removed.push({ name: serverText(name), group: column.group, dataType: serverText(column.dataType) });
  return diff;
}

/** The store takes a schema again under its name only when it adds columns (backward compatible). */
export function isCompatible(diff: SchemaDiff): boolean {
  return diff.removed.length === 0 && diff.changed.length === 0;
}

/** The `+ / - / ~` lines of a schema's difference, each one line: the store's names and types escaped. */
export function schemaDiffLines(diff: SchemaDiff): string[] {
  return [
    ...diff.added.map((c) => `+ ${serverText(c.name)}: ${serverText(c.dataType)} (${c.group.replace('FieldSpecs', '')})`),
    ...diff.removed.map((c) => `- ${serverText(c.name)}: ${serverText(c.dataType)} (${c.group.replace('FieldSpecs', '')})`),
    ...diff.changed.map((c) => `~ ${serverText(c.name)}: ${serverText(c.from)} → ${serverText(c.to)}`),
  ];
}

/** The lines of a table's difference, values JSON-quoted with every control escaped (JSON.stringify leaves DEL, C1, U+2028/2029 and bidi controls raw). */
export function tableDiffLines(changes: FieldChange[]): string[] {
  const value = (v: unknown) => serverText(String(JSON.stringify(v)));
  return changes.map((c) => (c.change === '~' ? `~ ${c.path}: ${value(c.from)} → ${value(c.to)}${c.from === c.to ? ' (sensitive value differs)' : ''}` : c.change === '+' ? `+ ${c.path}: ${value(c.to)}` : `- ${c.path}: ${value(c.from)}`));
}
