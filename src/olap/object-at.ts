/**
 * The mapping at a path of a parsed document or a server's answer (`objectAt(table,
 * 'tableIndexConfig', 'streamConfigs')`); an empty one where there is none, or where the
 * value there is no mapping. Own keys only: `__proto__` or `constructor` is a key like any other.
 */
export function objectAt(value: unknown, ...path: readonly (string | number)[]): Record<string, unknown> {
  let current = value;
  for (const key of path) current = typeof current === 'object' && current !== null && Object.hasOwn(current, key) ? (current as Record<string | number, unknown>)[key] : undefined;
  return typeof current === 'object' && current !== null && !Array.isArray(current) ? (current as Record<string, unknown>) : {};
}

/** A mapping of a parsed document or an answer (an object, never an array or null). */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
