import { describe, expect, it } from 'vitest';
import { viewportOf } from '../../src/dashboard/build-dashboard.js';
import { rison } from '../../src/dashboard/superset-client.js';

describe("the dashboard tool's query language and the map's viewport", () => {
  it('writes Rison as Superset reads it: bare words, quoted text with ! escapes, lists and objects', () => {
    expect(rison({ filters: [{ col: 'table_name', opr: 'eq', value: 'track_latest_100' }], page_size: 100 })).toBe('(filters:!((col:table_name,opr:eq,value:track_latest_100)),page_size:100)');
    expect(rison({ value: "Tracks of 'today'!" })).toBe("(value:'Tracks of !'today!'!!')");
    expect(rison({ value: '100 rows', flag: true, none: null })).toBe("(value:'100 rows',flag:!t,none:!n)");
  });

  it('centres the map on the points and zooms to their extent', () => {
    const viewport = viewportOf([
      { lon: 5, lat: 50 },
      { lon: 9.9, lat: 52.9 },
    ]);
    expect(viewport.longitude).toBeCloseTo(7.45);
    expect(viewport.latitude).toBeCloseTo(51.45);
    // 2.9° of latitude counted twice (a map is twice as wide as high) is 5.8°, more than the 4.9° of longitude: zoom log2(360/5.8).
    expect(viewport.zoom).toBeCloseTo(Math.log2(360 / 5.8), 1);
    expect(viewportOf([])).toEqual({ longitude: 0, latitude: 0, zoom: 1, bearing: 0, pitch: 0 });
    expect(viewportOf([{ lon: -179, lat: -89 }, { lon: 179, lat: 89 }]).zoom).toBeCloseTo(0, 1);
  });
});
