import { STORAGE_TOUCH_NOT_NEEDED_FROM } from './constants.js';

/** Compares dotted versions numerically part by part: 1.15.99 < 1.15.165 < 1.16. Suffixes like -rc1 are ignored. */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.split(/[.+-]/).map((p) => Number.parseInt(p, 10)).filter((n) => !Number.isNaN(n));
  const x = parts(a);
  const y = parts(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const diff = (x[i] ?? 0) - (y[i] ?? 0);
    if (diff !== 0) return Math.sign(diff);
  }
  return 0;
}

export function isVersion(text: string): boolean {
  return /^\d+(\.\d+)*([-+][0-9A-Za-z.-]+)?$/.test(text);
}

/** Step 6 of the contract: needed before 1.15.165; with the version unknown, made anyway (a harmless GET). */
export function storageTouchNeeded(version: string | undefined): 'needed' | 'not-needed' | 'unknown' {
  if (version === undefined) return 'unknown';
  return compareVersions(version, STORAGE_TOUCH_NOT_NEEDED_FROM) < 0 ? 'needed' : 'not-needed';
}
