/**
 * The dependencies the build puts in files of their own (dist/cli/vendor/, scripts/build.mjs)
 * behave as the packages do. The stream client's option validators are compiled on their first
 * call there, not when it loads: a client made with `strict: true` refuses bad options in the
 * same words as the package from node_modules.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as original from '@platformatic/kafka';
import { ROOT } from '../helpers/run-dpgw.js';

const built = createRequire(import.meta.url)(join(ROOT, 'dist/cli/vendor/platformatic-kafka.cjs')) as typeof original;

/** The message a client's making or call is refused with, or 'accepted'. */
async function refusal(attempt: () => unknown): Promise<string> {
  try {
    await attempt();
    return 'accepted';
  } catch (error) {
    return (error as Error).message;
  }
}

describe('the stream client as dpgw bundles it', () => {
  it('validates options with strict: true as the package does, on first use', async () => {
    const options = { clientId: 'dpgw-test', bootstrapBrokers: ['127.0.0.1:9'], strict: true };
    for (const kafka of [built, original]) {
      expect(await refusal(() => new kafka.Producer({ ...options, timeout: -1 }))).toBe('/options/timeout must be >= 0.');
      expect(await refusal(() => new kafka.Admin({ ...options, retries: 'many' as unknown as number }))).toBe(
        '/options/retries must be number, /options/retries must be boolean, /options/retries must match exactly one schema in oneOf.',
      );
      const admin = new kafka.Admin(options);
      expect(await refusal(() => admin.listTopics({ includeInternals: 'yes' as unknown as boolean }))).toBe('/options/includeInternals must be boolean.');
      await admin.close();
    }
  });
});
