/** The name a manifest marks its tables with, and reading the mark back from a table as the store returns it. */
import { describe, expect, it } from 'vitest';
import type { RealtimeTableDefinition } from '../../src/contract/types.js';
import { MANIFEST_MARK_KEY, manifestMarkOf, schemaNameOf, withManifestMark } from '../../src/olap/manifest-mark.js';
import { manifestNameOf } from '../../src/provision/manifest.js';

describe("a manifest's name", () => {
  it('is the file name without its extension, or the folder name for provision.yaml / .yml / .json', () => {
    expect(manifestNameOf('/repo/manifests/team-a.yaml')).toBe('team-a');
    expect(manifestNameOf('/repo/manifests/team.b.json')).toBe('team.b');
    expect(manifestNameOf('/repo/fleet/provision.yaml')).toBe('fleet');
    expect(manifestNameOf('/repo/fleet/provision.yml')).toBe('fleet');
    expect(manifestNameOf('/repo/fleet/provision.json')).toBe('fleet');
    expect(manifestNameOf('examples/track/provision.yaml')).toBe('track');
  });
});

describe('the mark', () => {
  const table = { tableName: 't', metadata: { customConfigs: { owner: 'ops' } } } as unknown as RealtimeTableDefinition;

  it("is added to the template's customConfigs under dpgw.manifest, over any value the template gives it", () => {
    expect(MANIFEST_MARK_KEY).toBe('dpgw.manifest');
    expect(withManifestMark(table, 'team').metadata).toEqual({ customConfigs: { owner: 'ops', 'dpgw.manifest': 'team' } });
    expect(withManifestMark({ ...table, metadata: { customConfigs: { 'dpgw.manifest': 'other' } } }, 'team').metadata!.customConfigs['dpgw.manifest']).toBe('team');
    expect(withManifestMark({ tableName: 't' } as RealtimeTableDefinition, 'team').metadata).toEqual({ customConfigs: { 'dpgw.manifest': 'team' } });
  });

  it('is read back from a table wrapped by its type, or bare; none, or not a string, is no mark', () => {
    expect(manifestMarkOf({ REALTIME: { metadata: { customConfigs: { 'dpgw.manifest': 'team' } }, segmentsConfig: { schemaName: 's' } } })).toBe('team');
    expect(manifestMarkOf({ metadata: { customConfigs: { 'dpgw.manifest': 'team' } } })).toBe('team');
    expect(manifestMarkOf({ REALTIME: { metadata: { customConfigs: {} } } })).toBeUndefined();
    expect(manifestMarkOf({ REALTIME: { metadata: { customConfigs: { 'dpgw.manifest': 7 } } } })).toBeUndefined();
    expect(manifestMarkOf({ REALTIME: { metadata: null } })).toBeUndefined();
    expect(schemaNameOf({ REALTIME: { segmentsConfig: { schemaName: 's' } } })).toBe('s');
    expect(schemaNameOf({ REALTIME: {} })).toBeUndefined();
  });
});
