// Writes docs/provision-manifest.schema.json, the JSON Schema of provision
// manifests (and docs/provision-plan.schema.json, of plans), from the zod description in src/provision/manifest.ts (built to
// dist/lib first). A test fails when the committed file and the code disagree.
import { writeFileSync } from 'node:fs';
import { manifestJsonSchema } from '../dist/lib/provision/manifest.js';
import { planJsonSchema } from '../dist/lib/provision/plan-format.js';

// And docs/provision-plan.schema.json, the format of `dpgw provision --plan --json` (src/provision/plan-format.ts).
for (const [name, schema] of [['provision-manifest', manifestJsonSchema()], ['provision-plan', planJsonSchema()]]) {
  const file = new URL(`../docs/${name}.schema.json`, import.meta.url);
  writeFileSync(file, JSON.stringify(schema, null, 2) + '\n');
  console.log(`wrote ${file.pathname}`);
}
