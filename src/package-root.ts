import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** The dpgw package's folder (where templates/ lives), found from this module whether bundled or not. */
export function packageRoot(): string {
  if (cached) return cached;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'dpgw') return (cached = dir);
    if (dirname(dir) === dir) throw new Error('cannot find the dpgw package folder');
  }
}
