/** The name a manifest marks its tables with, and reading the mark back from a table as the store returns it. */
import { describe, expect, it } from 'vitest';
import type { RealtimeTableDefinition } from '../../src/contract/types.js';
import { MANIFEST_MARK_KEY, manifestMarkOf, schemaNameOf, tableOwnership, withManifestMark } from '../../src/olap/manifest-mark.js';
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

  const named = { name: 'team', named: true };
  const fromFolder = { name: 'team', named: false };

  it("is added to the template's customConfigs under dpgw.manifest, with dpgw.manifest.named for a name the manifest gives, over any value the template gives either", () => {
    expect(MANIFEST_MARK_KEY).toBe('dpgw.manifest');
    expect(withManifestMark(table, named).metadata).toEqual({ customConfigs: { owner: 'ops', 'dpgw.manifest': 'team', 'dpgw.manifest.named': 'true' } });
    expect(withManifestMark(table, fromFolder).metadata).toEqual({ customConfigs: { owner: 'ops', 'dpgw.manifest': 'team' } });
    expect(withManifestMark({ ...table, metadata: { customConfigs: { 'dpgw.manifest': 'other', 'dpgw.manifest.named': 'true' } } }, fromFolder).metadata!.customConfigs).toEqual({ 'dpgw.manifest': 'team' });
    expect(withManifestMark({ tableName: 't' } as RealtimeTableDefinition, named).metadata).toEqual({ customConfigs: { 'dpgw.manifest': 'team', 'dpgw.manifest.named': 'true' } });
  });

  it('makes a table its own only for the same name given the same way: a folder-taken name and a given one of the same words are two owners', () => {
    const live = (mark: { name: string; named: boolean }) => withManifestMark(table, mark) as unknown as Record<string, unknown>;
    expect(tableOwnership(live(named), named)).toEqual({ kind: 'own' });
    expect(tableOwnership(live(fromFolder), fromFolder)).toEqual({ kind: 'own' });
    expect(tableOwnership(live(fromFolder), named)).toEqual({ kind: 'other', owner: fromFolder });
    expect(tableOwnership(live(named), fromFolder)).toEqual({ kind: 'other', owner: named });
    expect(tableOwnership(table as unknown as Record<string, unknown>, named)).toEqual({ kind: 'unmarked' });
  });

  it('is read back from a table wrapped by its type, or bare; none, or not a string, is no mark', () => {
    expect(manifestMarkOf({ REALTIME: { metadata: { customConfigs: { 'dpgw.manifest': 'team' } }, segmentsConfig: { schemaName: 's' } } })).toEqual({ name: 'team', named: false });
    expect(manifestMarkOf({ metadata: { customConfigs: { 'dpgw.manifest': 'team', 'dpgw.manifest.named': 'true' } } })).toEqual({ name: 'team', named: true });
    expect(manifestMarkOf({ REALTIME: { metadata: { customConfigs: {} } } })).toBeUndefined();
    expect(manifestMarkOf({ REALTIME: { metadata: { customConfigs: { 'dpgw.manifest': 7 } } } })).toBeUndefined();
    expect(manifestMarkOf({ REALTIME: { metadata: null } })).toBeUndefined();
    expect(schemaNameOf({ REALTIME: { segmentsConfig: { schemaName: 's' } } })).toBe('s');
    expect(schemaNameOf({ REALTIME: {} })).toBeUndefined();
  });
});
