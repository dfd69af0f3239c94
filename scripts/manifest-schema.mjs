// Writes docs/provision-manifest.schema.json, the JSON Schema of provision
// manifests, from the zod description in src/provision/manifest.ts (built to
// dist/lib first). A test fails when the committed file and the code disagree.
import { writeFileSync } from 'node:fs';
import { manifestJsonSchema } from '../dist/lib/provision/manifest.js';

const file = new URL('../docs/provision-manifest.schema.json', import.meta.url);
writeFileSync(file, JSON.stringify(manifestJsonSchema(), null, 2) + '\n');
console.log(`wrote ${file.pathname}`);
