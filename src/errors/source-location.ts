/**
 * Where a problem is, as data: a place in a file (file, line, column, all counted from 1),
 * or a flag, URL, setting or field named as text. Text is made only when it is printed
 * (whereText); nothing parses it back, so a file named `a:1:2.yaml` stays one file.
 */
export class SourceLocation {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
  ) {}

  /** `file:line:column`, as editors and compilers say it. */
  toString(): string {
    return `${this.file}:${this.line}:${this.column}`;
  }

  /** --json shows a place as the text a user reads (`where`), as it always has. */
  toJSON(): string {
    return this.toString();
  }
}

/** A place in a file, or a flag, URL, setting or field named as text. */
export type Where = SourceLocation | string;

export function isSourceLocation(where: unknown): where is SourceLocation {
  return where instanceof SourceLocation;
}

/** The one way a place becomes text: `file:line:column`, or the text it is. */
export function whereText(where: Where): string {
  return typeof where === 'string' ? where : where.toString();
}
