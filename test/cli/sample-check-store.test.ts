/**
 * The sample check knows the store (issue 45, part 3), as a user meets it on the sandbox with a
 * topic of their own messages: columns the store fills from the stream's metadata, aggregation
 * outputs, columns flattened by complexTypeConfig and multi-value columns are judged as the
 * store fills them, and --sample-ignore passes a column the user knows better about.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { spawnDpgw } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const TOPIC = 'mock-data-library.track.track';
const TEMPLATE = readFileSync('templates/realtime-table.yaml', 'utf8');
const sandboxes = sandboxPerTest({ topicDelayMs: 0 });

/** Meetup RSVPs, as the store's own meetupRsvp example writes them: nested objects, an array of objects, an array of numbers. */
const messages = Array.from({ length: 12 }, (_, index) => ({
  event: { id: `e${index}`, name: 'talk' },
  group: { id: 100 + index, topics: [{ name: 'js' }, { name: 'db' }] },
  guests: index % 3,
  seats: [1, 2, index],
  mtime: 1_700_000_000_000 + index,
}));

const SCHEMA = `schemaName: rsvp
dimensionFieldSpecs:
  - { name: event.id, dataType: STRING }
  - { name: group.id, dataType: LONG }
  - { name: group.topics.name, dataType: STRING }
  - { name: seats, dataType: INT, singleValueField: false }
  - { name: __key, dataType: STRING }
  - { name: __metadata$offset, dataType: STRING }
  - { name: sketch, dataType: BYTES }
metricFieldSpecs:
  - { name: totalGuests, dataType: LONG }
dateTimeFieldSpecs:
  - { name: mtime, dataType: TIMESTAMP, format: "1:MILLISECONDS:EPOCH", granularity: "1:MILLISECONDS" }
`;

/** The default template with the store's ingestion settings a user brings: metadata, flattening, an aggregation. */
const STORE_TEMPLATE = TEMPLATE.replace('    stream.${streamType}.decoder.prop.format: JSON\n', '    stream.${streamType}.decoder.prop.format: JSON\n    stream.${streamType}.metadata.populate: "true"\n').replace(
  'ingestionConfig:\n',
  'ingestionConfig:\n  complexTypeConfig:\n    fieldsToUnnest: [group.topics]\n  aggregationConfigs:\n    - { columnName: totalGuests, aggregationFunction: "SUM(guests)" }\n',
);

async function setUp() {
  const sandbox = await sandboxes.start({ streamBacklog: 0 });
  const env = await adminPipelineEnv(sandbox);
  const folder = env.DPGW_CONFIG_DIR!;
  const dpgw = (args: string[]) => spawnDpgw(args, { env });
  const file = (name: string, text: string) => {
    writeFileSync(join(folder, name), text);
    return join(folder, name);
  };
  expect((await dpgw(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP])).code).toBe(0);
  sandbox.broker!.produce(TOPIC, messages.map((message, index) => ({ key: `k${index}`, value: JSON.stringify(message) })));
  const tableRequests = () => sandbox.requestLog.of('gateway').filter((e) => e.method !== 'GET' && e.path.includes('/tables'));
  return { dpgw, file, tableRequests };
}

describe('dpgw table create: the sample check knows the store', () => {
  it('metadata columns, an aggregation output, flattened and multi-value columns fit; the line says which were judged how', async () => {
    const { dpgw, file } = await setUp();
    const schema = file('rsvp.yaml', SCHEMA);
    const template = file('template.yaml', STORE_TEMPLATE);
    expect((await dpgw(['schema', 'push', schema])).code).toBe(0);
    const result = await dpgw(['table', 'create', '--dataset', 'track', '--schema', schema, '--template', template, '--time-column', 'mtime', '--wait-consuming', '0']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      new RegExp(`^messages checked: 12 messages of topic ${TOPIC.replace(/\./g, '\\.')} \\(all it held\\) fit schema rsvp; filled by the store: __key, __metadata\\$offset; flattened: event\\.id, group\\.id, group\\.topics\\.name; aggregated: totalGuests; not stored \\(the schema lacks them\\): event\\.name, guests$`, 'm'),
    );
    // A type the check has no rule for: named in one warning and passed.
    expect(result.stderr).toMatch(/^warning: rsvp: not judged against the messages, passed: sketch \(dpgw has no rule for BYTES\)$/m);
    expect(result.stderr).toContain('✓ table rsvp created');
  });

  it('without metadata.populate the offset column is refused, naming the stream config key; --sample-ignore passes it', async () => {
    const { dpgw, file, tableRequests } = await setUp();
    const schema = file('rsvp.yaml', SCHEMA);
    const template = file('template.yaml', STORE_TEMPLATE.replace('    stream.${streamType}.metadata.populate: "true"\n', ''));
    expect((await dpgw(['schema', 'push', schema])).code).toBe(0);
    const args = ['table', 'create', '--dataset', 'track', '--schema', schema, '--template', template, '--time-column', 'mtime', '--wait-consuming', '0'];
    const refused = await dpgw(args);
    expect(refused.code).toBe(2);
    // The key is the stream type's (stream.<streamType>.metadata.populate), as the template fills it.
    expect(refused.stderr).toMatch(/column __metadata\$offset: the store fills it from the stream only when the stream config sets stream\.\w+\.metadata\.populate: "true"; table rsvp would leave that column empty/);
    expect(tableRequests()).toEqual([]);

    const typo = await dpgw([...args, '--sample-ignore', '__metadata$ofset']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^dpgw: --sample-ignore: schema rsvp has no column __metadata\$ofset to pass unjudged — did you mean __metadata\$offset\? nothing was sent$/m);

    const ignored = await dpgw([...args, '--sample-ignore', '__metadata$offset']);
    expect(ignored.code, ignored.stderr).toBe(0);
    expect(ignored.stderr).toMatch(/^messages checked: .*; ignored: __metadata\$offset;/m);
  });

  it('an aggregation whose input no message carries is refused, naming the input', async () => {
    const { dpgw, file, tableRequests } = await setUp();
    const schema = file('rsvp.yaml', SCHEMA);
    const template = file('template.yaml', STORE_TEMPLATE.replace('SUM(guests)', 'SUM(guest)'));
    expect((await dpgw(['schema', 'push', schema])).code).toBe(0);
    const result = await dpgw(['table', 'create', '--dataset', 'track', '--schema', schema, '--template', template, '--time-column', 'mtime']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('column totalGuests: no sampled message carries guest, the input of SUM(guest) (did you mean guests?)');
    expect(tableRequests()).toEqual([]);
  });
});

describe('dpgw provision: a manifest entry\'s sampleCheck.ignore', () => {
  it('passes the named column unjudged in the plan; a column the schema lacks is refused at its file:line:col', async () => {
    const { dpgw, file } = await setUp();
    file('rsvp.yaml', SCHEMA);
    file('template.yaml', STORE_TEMPLATE.replace('    stream.${streamType}.metadata.populate: "true"\n', ''));
    const manifest = (ignore: string) =>
      file('provision.yaml', `dataSets:\n  - datasource: mock-data-library\n    dataset: track\n    groups: [${TRACK_GROUP}]\n    schema: rsvp.yaml\n    table: { template: template.yaml, timeColumn: mtime }\n    sampleCheck: { ignore: [${ignore}] }\n`);
    const planned = await dpgw(['provision', manifest('__metadata$offset'), '--plan', '--json']);
    expect(planned.code, planned.stderr).toBe(0);
    const sample = (JSON.parse(planned.stdout).plan[0].steps as Array<{ step: string; action: string; reason: string }>).find((s) => s.step === 'sample')!;
    expect(sample.action).toBe('check');
    expect(sample.reason).toContain('; ignored: __metadata$offset;');

    // Refused with the manifest's own problems, before any request (so before the data set is enabled in a run).
    const sent = () => sandboxes.current().requestLog.of('gateway').filter((e) => e.method !== 'GET').length;
    const before = sent();
    for (const args of [['--plan', '--json'], ['--json']]) {
      const typo = await dpgw(['provision', manifest('__metadata$ofset'), ...args]);
      expect(typo.code, typo.stderr).toBe(2);
      const { error } = JSON.parse(typo.stdout) as { error: { code: string; message: string; where: string } };
      expect(error.code).toBe('MANIFEST_INVALID');
      expect(`${error.where}: ${error.message}`).toMatch(/provision\.yaml:7:\d+: .*schema rsvp has no column __metadata\$ofset to pass unjudged/);
    }
    expect(sent()).toBe(before);
  });
});

describe('dpgw schema infer --check: the sample check\'s rule', () => {
  it('a multi-value INT column fed arrays of numbers, and a TIMESTAMP column fed epoch milliseconds, fit; an array of several in a single-value column does not', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'dpgw-check-'));
    const schema = join(folder, 'rsvp.yaml');
    writeFileSync(schema, 'schemaName: rsvp\ndimensionFieldSpecs:\n  - { name: seats, dataType: INT, singleValueField: false }\n  - { name: one, dataType: INT }\ndateTimeFieldSpecs:\n  - { name: mtime, dataType: TIMESTAMP, format: "1:MILLISECONDS:EPOCH", granularity: "1:MILLISECONDS" }\n');
    const lines = (one: unknown) => messages.map((m) => JSON.stringify({ seats: m.seats, one, mtime: m.mtime })).join('\n');
    writeFileSync(join(folder, 'fit.jsonl'), lines(4));
    const fitting = await spawnDpgw(['schema', 'infer', join(folder, 'fit.jsonl'), '--check', schema]);
    expect([fitting.code, fitting.stdout + fitting.stderr]).toEqual([0, expect.stringContaining(`12 messages fit ${schema}`)]);
    writeFileSync(join(folder, 'several.jsonl'), lines([4, 5]));
    const several = await spawnDpgw(['schema', 'infer', join(folder, 'several.jsonl'), '--check', schema]);
    expect(several.code).toBe(2);
    // The type named is the one inference gives the values, which is inference's to decide: not pinned here.
    expect(several.stdout.trimEnd().split('\n')).toEqual([expect.stringMatching(new RegExp(`^type: ${schema.replace(/[.\\/]/g, '\\$&')} declares one INT; the messages make it \\w+$`))]);
  });
});
