// Writes docs/provision-manifest.schema.json, the JSON Schema of provision
// manifests (and docs/provision-plan.schema.json, of plans), from the zod description in src/provision/manifest.ts (built to
// dist/lib first). A test fails when the committed file and the code disagree.
import { writeFileSync } from 'node:fs';
import { manifestSchemaText } from '../dist/lib/provision/manifest-schema-file.js';
import { planJsonSchema } from '../dist/lib/provision/plan-format.js';

// And docs/provision-plan.schema.json, the format of `dpgw provision --plan --json` (src/provision/plan-format.ts).
// The manifest's text is the one `dpgw manifest schema` prints and init and export copy beside their manifests.
for (const [name, text] of [['provision-manifest', manifestSchemaText()], ['provision-plan', JSON.stringify(planJsonSchema(), null, 2) + '\n']]) {
  const file = new URL(`../docs/${name}.schema.json`, import.meta.url);
  writeFileSync(file, text);
  console.log(`wrote ${file.pathname}`);
}
