/** "1 message", "3 messages": a count with its noun (nouns that take an s). */
export function plural(count: number | bigint, noun: string): string {
  return `${count} ${noun}${count === 1 || count === 1n ? '' : 's'}`;
}
