// The analytics store's own example files (schemas, table configs, sample messages), as its
// users bring them: read from the `examples/` folder of the pinot-tools jar on Maven Central
// (the jar the end-to-end tier's store runs from), unpacked once into
// ~/.cache/dpgw/pinot-<version>/examples. Nothing of them is copied into the repository.
//
//   node scripts/platform/store-examples.mjs    # prints the folder
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runToEnd } from './component-process.mjs';
import { javaHome } from './keycloak.mjs';
import { PINOT_VERSION, pinotLibraries } from './pinot.mjs';

/** @returns {Promise<string>} the folder holding `examples/` of the pinot-tools jar */
export async function storeExamples(version = PINOT_VERSION) {
  const lib = await pinotLibraries(version);
  const folder = join(lib, '..', 'examples');
  const complete = join(folder, '.complete');
  if (existsSync(complete)) return folder;
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  const jar = join(javaHome(), 'bin', 'jar');
  const unpacked = await runToEnd(jar, ['xf', join(lib, `pinot-tools-${version}.jar`), 'examples/'], { cwd: folder });
  if (unpacked.status !== 0) throw new Error(`could not unpack examples/ from pinot-tools-${version}.jar: ${unpacked.stderr}`);
  writeFileSync(complete, '');
  return folder;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await storeExamples());
