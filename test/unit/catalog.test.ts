import { describe, expect, it } from 'vitest';
import { defaultStorageOf, parseSelfHref, selfHrefOf, topicOf } from '../../src/catalog/data-set-facts.js';
import { normaliseSelfHref, paths } from '../../src/contract/paths.js';
import type { CatalogDataSet } from '../../src/contract/types.js';

const dataSet: CatalogDataSet = {
  name: 'track',
  storage: [
    { name: 'archive', id: 'a1' },
    { name: 'default', id: 's1' },
  ],
  links: [
    { rel: 'enablement', href: '/datasources/d1/enablements/e1' },
    { rel: 'self', href: '/datasources/d1/enablements/e1/datasets/t1' },
  ],
  labels: { 'platform.example/owner': 'team', 'platform.example/dataset': 'mock-track-topic' },
};

describe('catalog data set facts', () => {
  it('reads topic, self link and default storage', () => {
    expect(topicOf(dataSet)).toBe('mock-track-topic');
    expect(topicOf({ ...dataSet, labels: undefined, metadata: { labels: { 'x/dataset': 'nested-topic' } } })).toBe('nested-topic');
    expect(topicOf({ ...dataSet, labels: {} })).toBeUndefined();
    expect(selfHrefOf(dataSet)).toBe('/datasources/d1/enablements/e1/datasets/t1');
    expect(defaultStorageOf(dataSet)).toEqual({ name: 'default', id: 's1' });
    expect(parseSelfHref('/datasources/d1/enablements/e%201/datasets/t1')).toEqual({ dataSourceId: 'd1', enablementId: 'e 1', dataSetId: 't1' });
  });
});

describe('paths', () => {
  it('are the contract paths', () => {
    expect(paths.olapSchemas()).toBe('/api/internal/olap/schemas');
    expect(paths.olapTables()).toBe('/api/internal/olap/tables');
    expect(paths.catalogDataSets()).toBe('/api/v2/catalog/datasources/all/enablements/all/datasets');
    expect(paths.health()).toBe('/api/health');
    expect(paths.health('v2catalog')).toBe('/api/health/v2catalog');
    expect(paths.token('data platform')).toBe('/auth/realms/data%20platform/protocol/openid-connect/token');
  });

  it('normalise self hrefs written relative, absolute or with the catalog base', () => {
    for (const href of ['/datasources/d/enablements/e/datasets/t', 'datasources/d/enablements/e/datasets/t', '/api/v2/catalog/datasources/d/enablements/e/datasets/t/', 'https://gw.example/api/v2/catalog/datasources/d/enablements/e/datasets/t']) {
      expect(normaliseSelfHref(href)).toBe('/datasources/d/enablements/e/datasets/t');
    }
  });
});
