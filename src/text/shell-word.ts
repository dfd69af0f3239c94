/** A value as one shell word: as is when only safe characters, else single-quoted (a users file's secret, a path with spaces). */
export function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
