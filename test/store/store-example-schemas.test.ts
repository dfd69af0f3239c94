/**
 * Every example schema in the analytics store's pinot-tools jar validates with dpgw (issue 45, part 6), through the
 * built CLI as a user runs it: `dpgw schema validate FILE` exits 0 for each.
 */
import { describe, expect, it } from 'vitest';
import { cleanEnv, spawnDpgw } from '../helpers/run-dpgw.js';
import { exampleName, storeExampleFiles } from '../helpers/store-examples.js';

const { schemas, root } = storeExampleFiles();

describe("the store's own example schemas, through dpgw schema validate", () => {
  it('finds the 17 schemas of pinot-tools 0.11.0', () => expect(schemas.length).toBeGreaterThanOrEqual(17));

  it.each(schemas.map((file) => [exampleName(file, root), file]))('validates %s', async (_, file) => {
    const result = await spawnDpgw(['schema', 'validate', file!], { env: cleanEnv() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toMatch(/^error/m);
  });
});
