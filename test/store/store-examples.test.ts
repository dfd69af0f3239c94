import { describe, expect, it } from 'vitest';
import { exampleName, storeExampleFiles } from '../helpers/store-examples.js';

describe("the store's own example files, from its pinot-tools jar", () => {
  it('holds the schemas, realtime table configs and JSON messages the store tier reads', () => {
    const files = storeExampleFiles();
    // pinot-tools 0.11.0: 17 schemas, 16 realtime configs (issue 45); airlineStats and githubEvents messages.
    expect(files.schemas.length).toBeGreaterThanOrEqual(17);
    expect(files.realtimeTableConfigs.length).toBeGreaterThanOrEqual(16);
    expect(files.messages.map((file) => exampleName(file))).toEqual(expect.arrayContaining(['examples/stream/airlineStats/rawdata/airlineStats_data.json', 'examples/batch/githubEvents/rawdata/githubEvents_data.json']));
  });
});
