import { describe, expect, it } from 'vitest';
import { messageFromErrorBody } from '../../src/gateway/error-body.js';
import { registerSecret } from '../../src/secrets/redaction.js';

describe('messageFromErrorBody', () => {
  it('recognises each shape', () => {
    expect(messageFromErrorBody(JSON.stringify({ timestamp: 't', status: 400, error: 'Bad Request', message: 'schemaName is missing', path: '/p' }))).toEqual({ shape: 'spring', message: 'schemaName is missing' });
    expect(messageFromErrorBody(JSON.stringify({ timestamp: 't', status: 404, error: 'Not Found', message: 'No message available', path: '/p' }))).toEqual({ shape: 'spring', message: 'Not Found' });
    expect(messageFromErrorBody(JSON.stringify({ type: 'https://example/x', title: 'Conflict', status: 409, detail: 'table track exists' }))).toEqual({ shape: 'problem', message: 'Conflict: table track exists' });
    expect(messageFromErrorBody(JSON.stringify({ code: 409, error: 'Table track_REALTIME already exists' }))).toEqual({ shape: 'store', message: 'Table track_REALTIME already exists' });
    expect(messageFromErrorBody(JSON.stringify({ error: 'invalid_grant', error_description: 'Invalid user credentials' }))).toEqual({ shape: 'oauth', message: 'Invalid user credentials (invalid_grant)' });
    expect(messageFromErrorBody(JSON.stringify({ error: 'Realm does not exist' }))).toEqual({ shape: 'oauth', message: 'Realm does not exist' });
    expect(messageFromErrorBody('Service Unavailable\n')).toEqual({ shape: 'text', message: 'Service Unavailable' });
    expect(messageFromErrorBody('<html><head><title>502 Bad Gateway</title></head><body><h1>502</h1></body></html>')).toEqual({ shape: 'text', message: '502 Bad Gateway' });
    expect(messageFromErrorBody('')).toEqual({ shape: 'empty', message: '' });
    expect(messageFromErrorBody(JSON.stringify({ reason: 'weird' }))).toEqual({ shape: 'json', message: '{"reason":"weird"}' });
  });

  it('keeps the message to one line and masks secrets echoed back', () => {
    registerSecret('echoed-secret-value');
    const { message } = messageFromErrorBody(JSON.stringify({ code: 400, error: 'bad config:\n sasl.jaas.config=... password="echoed-secret-value";' }));
    expect(message).not.toContain('\n');
    expect(message).not.toContain('echoed-secret-value');
  });

  it('clips very long bodies', () => {
    expect(messageFromErrorBody('x'.repeat(5_000)).message.length).toBeLessThanOrEqual(500);
  });
});

describe('the dashboard tool’s error bodies', () => {
  it('reads Superset’s errors list and its field messages', () => {
    expect(messageFromErrorBody('{"errors":[{"message":"Dashboard could not be created.","error_type":"GENERIC_BACKEND_ERROR"}]}')).toEqual({ shape: 'dashboard', message: 'Dashboard could not be created.' });
    expect(messageFromErrorBody('{"message":{"table_name":["Dataset default.x already exists"]}}')).toEqual({ shape: 'dashboard', message: 'table_name: Dataset default.x already exists' });
    expect(messageFromErrorBody('{"message":"Fatal error"}')).toEqual({ shape: 'json', message: 'Fatal error' });
  });
});
