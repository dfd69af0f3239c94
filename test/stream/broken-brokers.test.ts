/**
 * Brokers that take the connection and then break the exchange (issue #30): closing it at
 * once, after reading the first request, or after an answer of garbage. `schema infer`
 * used to end in an unhandled rejection; every such socket failure must end in one line
 * with the "stream unreachable" exit code (5) — for reading a topic and for the stream
 * pre-flight of `table create` alike — and leave no rejection unhandled.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TRACK_GROUP } from '../../src/sandbox/sandbox.js';
import { cleanEnv, runInProcess, type RunResult } from '../helpers/run-dpgw.js';
import { adminPipelineEnv } from '../helpers/sandbox-http.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { TRACK_SCHEMA_FILE } from '../helpers/track.js';

type Behaviour = (socket: Socket) => void;

/** After the first bytes of a request arrive. */
const onFirstData = (then: (socket: Socket, data: Buffer) => void): Behaviour => (socket) => socket.once('data', (data) => then(socket, data));
/** A Kafka-framed answer (length prefix, the request's correlation id) whose body is garbage. */
const garbageAnswer = (data: Buffer, size: number) => {
  const body = Buffer.alloc(size, 0xff);
  if (data.length >= 12) data.copy(body, 0, 8, 12);
  const frame = Buffer.alloc(4 + size);
  frame.writeInt32BE(size, 0);
  body.copy(frame, 4);
  return frame;
};

const BEHAVIOURS: Record<string, Behaviour> = {
  'closes at once': (socket) => socket.destroy(),
  'closes after reading the first request': onFirstData((socket) => socket.destroy()),
  'ends after reading some bytes': onFirstData((socket) => socket.end()),
  'answers garbage, then closes': onFirstData((socket, data) => socket.end(garbageAnswer(data, 64))),
  'answers a short frame of garbage, then closes': onFirstData((socket, data) => socket.end(garbageAnswer(data, 6))),
  'answers bytes that are no frame, then closes': onFirstData((socket) => socket.end(Buffer.from('HTTP/1.1 400 Bad Request\r\n\r\n'))),
  'resets the connection': onFirstData((socket) => socket.resetAndDestroy()),
};

const servers: Server[] = [];
async function brokenBroker(behaviour: Behaviour): Promise<string> {
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    behaviour(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

// Any rejection left unhandled, or error thrown from a socket's event, while these run is a failure of its own
// (vitest reports them as errors too, but after the test that caused them).
const unhandled: unknown[] = [];
const record = (reason: unknown) => unhandled.push(reason);
beforeAll(() => {
  process.on('unhandledRejection', record);
  process.on('uncaughtException', record);
});
afterAll(() => {
  process.off('unhandledRejection', record);
  process.off('uncaughtException', record);
});

const errorLines = (result: RunResult) => result.stderr.split('\n').filter((line) => line.startsWith('dpgw:'));
/** Settles what the client leaves behind after a command (its sockets' last events) before unhandled rejections are counted. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

describe('schema infer --topic: brokers that break the exchange', () => {
  for (const [name, behaviour] of Object.entries(BEHAVIOURS)) {
    for (const sasl of [false, true]) {
      it(`${name}${sasl ? ' (SASL)' : ''}: one line, exit 5`, async () => {
        const broker = await brokenBroker(behaviour);
        const env = cleanEnv({ DPGW_BROKER_LIST: broker, ...(sasl ? { DPGW_STREAM_USER: 'dpgw-stream', DPGW_STREAM_PASSWORD: 'stream-password-1234' } : {}) });
        const result = await runInProcess(['schema', 'infer', '--topic', 'mock-data-library.track.track', '--timeout', '5'], env);
        await settle();
        expect(result.code, result.stderr).toBe(5);
        expect(errorLines(result), result.stderr).toEqual([expect.stringMatching(new RegExp(`^dpgw: ${broker}: `))]);
        expect(result.stderr).not.toMatch(/unexpected error|at .*\.js:\d+/);
        expect(result.stderr + result.stdout).not.toContain('stream-password-1234');
        expect(unhandled).toEqual([]);
      });
    }
  }
});

describe('table create: the stream pre-flight against brokers that break the exchange', () => {
  const sandboxes = sandboxPerTest({ topicDelayMs: 0 });

  it('each breakage: one line, exit 5, the table not sent', async () => {
    const sandbox = await sandboxes.start();
    const env = await adminPipelineEnv(sandbox);
    expect((await runInProcess(['enable', '--datasource', 'mock-data-library', '--dataset', 'track', '--group', TRACK_GROUP], env)).code).toBe(0);
    expect((await runInProcess(['schema', 'push', TRACK_SCHEMA_FILE], env)).code).toBe(0);
    for (const [name, behaviour] of Object.entries(BEHAVIOURS)) {
      const broker = await brokenBroker(behaviour);
      const result = await runInProcess(['table', 'create', '--dataset', 'track', '--schema', TRACK_SCHEMA_FILE, '--broker-list', broker, '--timeout', '5'], env);
      await settle();
      expect(result.code, `${name}: ${result.stderr}`).toBe(5);
      expect(errorLines(result), name).toEqual([expect.stringMatching(new RegExp(`^dpgw: ${broker}: table track would never consume: `))]);
      expect(unhandled, name).toEqual([]);
    }
    expect(sandbox.requestLog.of('gateway').filter((e) => e.method === 'POST' && e.path === '/api/internal/olap/tables')).toHaveLength(0);
  }, 60_000);
});
