/**
 * One notion of a sample of a topic (issue #48 §3): `init`, `provision --plan` and `schema infer --dataset` of the
 * same topic read as many messages and tell them in the same words. The latest messages were an even split of the
 * limit over the partitions, so a partition holding less than its share left the sample short (197 of 200).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { runInProcess } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sandboxes = sandboxPerTest();
const TOPIC = 'mock-data-library.track.track';
const told = (text: string): string[] => [...text.matchAll(new RegExp(`(\\d+ messages? of topic ${TOPIC.replace(/\./g, '\\.')}(?: \\(all it held\\))?)`, 'g'))].map((match) => match[1]!);

describe('a sample of the topic, as init, the plan and schema infer tell it', () => {
  it.each([[undefined], ['150']])('--sample %s: the same count in the same words, the messages the topic holds up to the sample', async (sample) => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    const enabled = await runInProcess(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP], env);
    expect(enabled.code, enabled.stderr).toBe(0);
    const sampleFlag = sample === undefined ? [] : ['--sample', sample];
    const folder = join(mkdtempSync(join(tmpdir(), 'dpgw-counts-')), 'track');

    const inferred = await runInProcess(['schema', 'infer', '--dataset', 'track', ...sampleFlag, '--json'], env);
    expect(inferred.code, inferred.stderr).toBe(0);
    const held = Number(sample ?? 200);
    // The sandbox's topic holds 200 messages over 3 partitions, unevenly.
    expect(JSON.parse(inferred.stdout).messages).toBe(held);
    const header = await runInProcess(['schema', 'infer', '--dataset', 'track', ...sampleFlag], env);
    const init = await runInProcess(['init', folder, '--datasource', 'mock-data-library', '--dataset', 'track', ...sampleFlag, '--no-input'], env);
    expect(init.code, init.stderr).toBe(0);
    const plan = await runInProcess(['provision', join(folder, 'provision.yaml'), '--plan', ...sampleFlag], env);
    expect(plan.code, plan.stderr).toBe(0);

    const words = `${held} messages of topic ${TOPIC}`;
    expect(told(header.stdout)).toEqual([words]);
    expect(told(init.stderr)).toEqual([words]);
    expect(plan.stdout).toMatch(new RegExp(`^ {2}3\\. sample +check +${words.replace(/\./g, '\\.')} fit schema track$`, 'm'));
  });
});
