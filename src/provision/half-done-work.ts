/**
 * What a run has under way that quitting at once would leave half done: a table deleted to be
 * replaced and not yet created anew. A second stop signal (Ctrl-C again, or the SIGTERM a CI
 * runner sends after its SIGINT) exits without a summary; its handler says these lines first,
 * so the log still tells what the run did to the platform.
 */
export class HalfDoneWork {
  private readonly underWay = new Set<{ line: string }>();

  /** Notes `line` until the returned function is called (when the work is whole again, or has failed and says so itself). */
  begin(line: string): () => void {
    const entry = { line };
    this.underWay.add(entry);
    return () => {
      this.underWay.delete(entry);
    };
  }

  lines(): string[] {
    return [...this.underWay].map((entry) => entry.line);
  }
}
