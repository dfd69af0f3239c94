/** Text as both CI report files hold it (junit.ts, code-quality.ts), so the two say the same. */
import { redactText } from '../../secrets/redaction.js';

/**
 * What XML 1.0 forbids (C0 controls but tab, line feed and carriage return; U+FFFE, U+FFFF; half of a surrogate
 * pair), with DEL and the C1 controls no reader wants: a file holding one does not parse, and GitLab drops the report.
 */
// eslint-disable-next-line no-control-regex -- the controls are what is matched
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Masked as the terminal is; a character XML 1.0 forbids shown as its \u escape. */
export function reportText(text: string): string {
  return redactText(text).replace(NOT_XML, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
