import { jsonLines } from '../../output/document-lines.js';
import type { CommandOutput } from '../../output/reporter.js';
import { maskSecrets } from '../../secrets/redaction.js';

export interface DryRunRequest {
  method: string;
  path: string;
  body?: unknown;
}

/** `--dry-run`: the requests that would be sent, secrets masked, and nothing sent. */
export function renderDryRun(requests: DryRunRequest[], extra: Record<string, unknown> = {}): CommandOutput {
  const masked = requests.map((r) => ({ method: r.method, path: r.path, ...(r.body === undefined ? {} : { body: maskSecrets(r.body) }) }));
  return {
    data: { dryRun: true, requests: masked, ...extra },
    human: (style) =>
      [style.dim('dry run: nothing was sent; these requests would be'), ...masked.flatMap((r) => ['', `${style.bold(r.method)} ${r.path}`, ...(r.body === undefined ? [] : jsonLines(r.body))])],
  };
}
