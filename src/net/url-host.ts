/** host[:port] of a URL, as an error line names a server (never its path, query or credentials); the text itself when it is no URL. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
