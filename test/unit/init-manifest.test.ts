/** The manifest `dpgw init` writes: what it names reads back as written, and no comment can break out of its line. */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { initManifestText, type InitManifest } from '../../src/init/init-manifest.js';

const manifest: InitManifest = {
  dataSource: 'mock-data-library',
  dataSet: 'yes',
  enablement: { value: 'on', exists: false, chosenBecause: "default: the data set's name" },
  groups: ['null', 'track-readers'],
  schema: { file: 'schema.yaml', from: 'inferred from 200 messages of topic evil\ngroups: [intruders]\r\ndataSets: []' },
  table: { value: 'true' },
  retentionDays: { value: 7, chosenBecause: 'default' },
};

describe('initManifestText', () => {
  it('writes names YAML would read as other types as strings, and a comment with line breaks on its one line', () => {
    const text = initManifestText(manifest, 'dir\n/provision.yaml');
    expect(parse(text)).toEqual({
      version: 1,
      dataSets: [{ datasource: 'mock-data-library', dataset: 'yes', enablement: 'on', groups: ['null', 'track-readers'], schema: 'schema.yaml', table: { name: 'true', retentionDays: 7 } }],
    });
    expect(text).toMatch(/^ {4}schema: schema\.yaml {2}# inferred from 200 messages of topic evil\uFFFDgroups: \[intruders\]\uFFFD\uFFFDdataSets: \[\]$/m);
    expect(text.split('\n').filter((line) => line.startsWith('#'))).toHaveLength(7);
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=./provision-manifest.schema.json');
  });

  it('comments only what dpgw chose: a value the user gave has none', () => {
    const text = initManifestText(manifest, 'provision.yaml');
    expect(text).toMatch(/^ {6}name: "true"$/m);
    expect(text).toMatch(/^ {4}enablement: "on" {2}# default: the data set's name; new: the first run creates it$/m);
  });
});
