import { describe, expect, it } from 'vitest';
import { MASK, maskHeaders, maskSecrets, redactText, registerSecret } from '../../src/secrets/redaction.js';

describe('redaction', () => {
  it('masks secret-named keys at any depth and keeps the rest', () => {
    const masked = maskSecrets({
      username: 'admin',
      password: 'pw-1',
      nested: { client_secret: 'cs-1', clientSecret: 'cs-2', access_token: 'at', refresh_token: 'rt', token_type: 'Bearer', expires_in: 300 },
      list: [{ 'sasl.jaas.config': 'ScramLoginModule required username="u" password="p\\"q";' }],
    });
    expect(masked).toEqual({
      username: 'admin',
      password: MASK,
      nested: { client_secret: MASK, clientSecret: MASK, access_token: MASK, refresh_token: MASK, token_type: 'Bearer', expires_in: 300 },
      list: [{ 'sasl.jaas.config': `ScramLoginModule required username="u" password="${MASK}";` }],
    });
  });

  it('masks a JAAS value whose password it cannot find as a whole', () => {
    expect(maskSecrets({ 'sasl.jaas.config': 'something opaque' })).toEqual({ 'sasl.jaas.config': MASK });
  });

  it('scrubs registered secrets and bearer tokens from text', () => {
    registerSecret('registered-value-123');
    expect(redactText('x registered-value-123 y')).toBe(`x ${MASK} y`);
    expect(redactText('Authorization: Bearer abc.def-ghi_jkl')).toBe(`Authorization: Bearer ${MASK}`);
    expect(redactText('password=plain;')).toBe(`password=${MASK};`);
  });

  it("masks a URL's password, a registry client's user info and Kafka's PEM private key", () => {
    expect(redactText('at https://user:pa55@registry:8081/x and http://plain/ and mailto:a@b')).toBe(`at https://user:${MASK}@registry:8081/x and http://plain/ and mailto:a@b`);
    expect(maskSecrets({ 'stream.kafka.decoder.prop.basic.auth.user.info': 'u:p', 'ssl.keystore.key': 'pem', 'ssl.keystore.type': 'PEM' })).toEqual({ 'stream.kafka.decoder.prop.basic.auth.user.info': MASK, 'ssl.keystore.key': MASK, 'ssl.keystore.type': 'PEM' });
    const started = performance.now();
    redactText(`${'a.'.repeat(500_000)}@`);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('ignores registered values too short to be told from ordinary words', () => {
    registerSecret('ab');
    expect(redactText('ab cab')).toBe('ab cab');
  });

  it('keeps the scheme of Authorization headers', () => {
    expect(maskHeaders({ authorization: 'Bearer xyz', 'content-type': 'application/json', cookie: 'a=b' })).toEqual({
      authorization: `Bearer ${MASK}`,
      'content-type': 'application/json',
      cookie: MASK,
    });
  });

  it("masks every secret option of a store's JAAS line (an OAuth module's clientSecret too), not only password", () => {
    const line = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="reader" clientSecret="TOPSECRET" password=p1;';
    expect(maskSecrets({ 'sasl.jaas.config': line })).toEqual({ 'sasl.jaas.config': 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="reader" clientSecret="***" password=***;' });
    expect(maskSecrets({ 'sasl.jaas.config': 'x required clientId="reader" clientSecret=\'TOP"SECRET\';' })['sasl.jaas.config']).toBe('x required clientId="reader" clientSecret=\'***\';');
    expect(maskSecrets({ 'sasl.jaas.config': 'x required clientId="reader";' })['sasl.jaas.config']).toBe(MASK);
  });
});

