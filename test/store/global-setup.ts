/**
 * The store tier: dpgw held against the analytics store's own code and files, read from its
 * artifacts on Maven Central at test time. A part that cannot be had fails the tier.
 */
import type { TestProject } from 'vitest/node';
// @ts-expect-error -- a plain ESM script of the project (scripts/), typed at its use
import { storeExamples } from '../../scripts/platform/store-examples.mjs';
// @ts-expect-error -- a plain ESM script of the project (scripts/), typed at its use
import { schemaHarnesses } from '../../scripts/platform/schema-harness.mjs';

export default async function setup(project: TestProject): Promise<void> {
  project.provide('storeExamples', (await storeExamples()) as string);
  project.provide('schemaHarnesses', JSON.stringify(await schemaHarnesses()));
}
