/** `--report junit=FILE`: a JUnit test case per report item (a data set, or a manifest problem); a failed item fails. */
import type { ReportItem } from '../../provision/ci-reports.js';
import { isSourceLocation, whereText } from '../../errors/source-location.js';
import { serverText } from '../../text/terminal-text.js';
import { reportText } from './report-text.js';

export function junitReport(suite: string, items: ReportItem[]): string {
  const failures = items.filter((item) => item.failure !== undefined).length;
  const cases = items.map((item) => {
    const open = `  <testcase classname="${xml(suite)}" name="${xml(item.name)}"${item.seconds !== undefined ? ` time="${item.seconds.toFixed(3)}"` : ''}${item.where ? ` file="${xml(isSourceLocation(item.where) ? item.where.file : item.where)}"` : ''}`;
    return item.failure === undefined ? `${open}/>` : `${open}>\n    <failure message="${xml(item.failure)}">${xml(`${item.where ? `${whereText(item.where)}: ` : ''}${item.failure}`)}</failure>\n  </testcase>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="${xml(suite)}" tests="${items.length}" failures="${failures}">\n${cases.join('\n')}\n</testsuite>\n`;
}

/**
 * The one way text enters the JUnit file, an attribute (a name, a message) or the text of a failure: on one line,
 * its line breaks and tabs shown escaped (`\n`) as the terminal shows them, since a reader folds them to spaces in
 * an attribute, and a manifest's key is not to start a line of its own anywhere.
 */
function xml(text: string): string {
  return serverText(reportText(text)).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
