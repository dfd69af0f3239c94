/** `--report codequality=FILE`: GitLab's Code Quality format, an issue per failed report item at its path (relative to the project) and line. */
import { createHash } from 'node:crypto';
import { projectPath } from '../project-path.js';
import type { ReportItem } from '../../provision/ci-reports.js';
import { isSourceLocation } from '../../errors/source-location.js';
import { serverText } from '../../text/terminal-text.js';
import { reportText } from './report-text.js';

/** `cwd`: the folder the command ran in, which a relative manifest path is relative to. */
export function codeQualityReport(items: ReportItem[], projectDir: string, cwd: string): string {
  const issues = items
    .filter((item) => item.failure !== undefined)
    .map((item) => {
      const position = isSourceLocation(item.where) ? item.where : undefined;
      // A file name a merge request committed may hold a bidirectional override or a line separator: escaped as JUnit's `file` is.
      const path = position ? serverText(projectPath(position.file, projectDir, cwd)) : 'provision manifest';
      const description = serverText(reportText(`${item.name}: ${item.failure}`));
      return {
        description,
        check_name: 'dpgw',
        fingerprint: createHash('sha256').update(`${path}\u0000${position?.line ?? 0}\u0000${description}`).digest('hex'),
        severity: 'major',
        location: { path, lines: { begin: position?.line ?? 1 } },
      };
    });
  return `${JSON.stringify(issues, null, 2)}\n`;
}

