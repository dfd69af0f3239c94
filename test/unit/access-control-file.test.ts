import { describe, expect, it } from 'vitest';
import { checkAccessControl, parseProperties, renderAccessControl } from '../../src/query-access/access-control-file.js';

describe('access-control.properties', () => {
  it('parses as a coordinator does: separators, comments, continuation, escapes, with positions', () => {
    const entries = parseProperties('# c\n! c\n  a.b = 1\nc:2\nd 3\nlong=http://x/\\\n    y\nesc=a\\=b\\u0041\n');
    expect(entries.map((e) => [e.key, e.value, e.line, e.column, e.valueColumn])).toEqual([
      ['a.b', '1', 3, 3, 9],
      ['c', '2', 4, 1, 3],
      ['d', '3', 5, 1, 3],
      ['long', 'http://x/y', 6, 1, 6],
      ['esc', 'a=bA', 8, 1, 5],
    ]);
  });

  it('a rendered file passes its own check; the renderer writes only what the settings give', () => {
    const text = renderAccessControl({ policyEngine: 'opa', policyUri: 'http://opa:8181/v1/data/dpgw/query_access/allow' });
    expect(checkAccessControl(text, { policyEngine: 'opa' })).toMatchObject({ ok: true, problems: [], policyEngine: 'opa' });
    expect(text).not.toContain('batched-uri');
  });

  it('an unknown policy engine: the contract keys are checked, the rest is a warning', () => {
    const result = checkAccessControl('fine-grained-access-control-enabled=TRUE\naccess-control.name=ranger\nranger.service.name=dp\n');
    expect(result.ok).toBe(true);
    expect(result.problems.map((p) => `${p.line}:${p.column} ${p.severity}`)).toEqual(['2:21 warning', '3:1 warning']);
  });

  it("the query engine's own access controls, and a typo of a policy engine, fail: the contract requires an external one", () => {
    for (const builtIn of ['allow-all', 'read-only', 'file', 'default']) {
      const result = checkAccessControl(`fine-grained-access-control-enabled=true\naccess-control.name=${builtIn}\n`);
      expect(result.ok).toBe(false);
      expect(result.problems[0]).toMatchObject({ severity: 'error', line: 2, message: expect.stringContaining(`"${builtIn}", the query engine's own access control`) });
    }
    const typo = checkAccessControl('fine-grained-access-control-enabled=true\naccess-control.name=opaa\nopa.policy.uri=http://opa/allow\n');
    expect(typo.ok).toBe(false);
    expect(typo.problems.find((p) => p.line === 2)).toMatchObject({ severity: 'error', message: 'access-control.name is "opaa", not a policy engine dpgw knows (did you mean opa?)' });
    expect(checkAccessControl('fine-grained-access-control-enabled=true\naccess-control.name=allow-all\n', { policyEngine: 'allow-all' }).ok).toBe(false);
    expect(checkAccessControl('fine-grained-access-control-enabled=true\naccess-control.name=acme-pdp\n', { policyEngine: 'acme-pdp' }).ok).toBe(true);
  });

  it('a line without a key, or a key without a value, is an error', () => {
    const result = checkAccessControl('=true\nfine-grained-access-control-enabled=\naccess-control.name=opa\nopa.policy.uri=http://opa/allow\n');
    expect(result.ok).toBe(false);
    expect(result.problems.filter((p) => p.severity === 'error').map((p) => `${p.line} ${p.message}`)).toEqual([
      '1 a line with a value but no key',
      '2 fine-grained-access-control-enabled has no value',
    ]);
  });
});
