import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/settings/config-file.js';
import { type DpgwError } from '../../src/errors/dpgw-error.js';
import { closestMatch } from '../../src/text/closest-match.js';

function errorOf(text: string): DpgwError {
  try {
    parseConfigText(text, '/cfg/config.yaml');
  } catch (error) {
    return error as DpgwError;
  }
  throw new Error('expected an error');
}

describe('config.yaml', () => {
  it('reads profiles with the location of each value, keeping version text as written', () => {
    const config = parseConfigText('currentProfile: dev\nprofiles:\n  dev:\n    gateway: http://gw\n    platformVersion: 1.10\n', '/cfg/config.yaml');
    expect(config.currentProfile).toEqual({ value: 'dev', location: '/cfg/config.yaml:1:17' });
    expect(config.profiles.get('dev')?.get('gateway')).toEqual({ value: 'http://gw', location: '/cfg/config.yaml:4:14' });
    expect(config.profiles.get('dev')?.get('platformVersion')?.value).toBe('1.10');
  });

  it('reports a YAML syntax error with line and column', () => {
    const error = errorOf('profiles:\n  dev:\n    gateway: "http://gw\n');
    expect(error.kind).toBe('input');
    expect(error.where).toMatch(/^\/cfg\/config\.yaml:\d+:\d+$/);
    expect(error.message).toMatch(/^YAML syntax error: /);
    expect(error.toLine()).not.toContain('\n');
  });

  it('names an unknown key with its location and the nearest known one', () => {
    const error = errorOf('profiles:\n  dev:\n    gatway: http://gw\n');
    expect(error.where).toBe('/cfg/config.yaml:3:5');
    expect(error.message).toBe('unknown key "gatway" in profile "dev"');
    expect(error.hint).toBe('did you mean "gateway"?');
  });

  it('rejects a duplicate key and a non-scalar value', () => {
    expect(errorOf('profiles:\n  dev:\n    gateway: a\n    gateway: b\n').message).toMatch(/YAML syntax error/);
    expect(errorOf('profiles:\n  dev:\n    gateway: [a, b]\n').where).toBe('/cfg/config.yaml:3:14');
  });
});

describe('closestMatch', () => {
  it('suggests only near words', () => {
    expect(closestMatch('realn', ['realm', 'gateway'])).toBe('realm');
    expect(closestMatch('authurl', ['authUrl'])).toBe('authUrl');
    expect(closestMatch('zzz', ['realm', 'gateway'])).toBeUndefined();
  });
});
