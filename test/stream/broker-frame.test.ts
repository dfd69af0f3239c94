/**
 * A broker's announced frame size (issue 44, part 5): a "broker" that answers the first
 * request with a length prefix of 0x7ffffff0 and then keeps sending made dpgw buffer what
 * it sent (1.49 GB in 10 s) until the connect timeout. A peer on the broker port that is
 * no Kafka broker does the same by accident: an HTTP server's "HTTP" reads as 1.2 billion
 * bytes, a TLS alert as 352 million. The answer is refused at its length prefix, in one
 * line naming the broker, the size and the bound, before the client buffers it: for
 * reading a topic, the stream pre-flight and the end offsets of `table status` alike.
 */
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { DpgwError } from '../../src/errors/dpgw-error.js';
import { MAX_ANSWER_BYTES } from '../../src/net/answer-bounds.js';
import { sampleTopic } from '../../src/schema-inference/sample-messages.js';
import { BrokerFrames, type FrameBudget } from '../../src/stream/broker-frames.js';
import { StreamPreflight } from '../../src/stream/stream-preflight.js';
import { topicEndOffsets } from '../../src/stream/topic-end-offsets.js';
import { BIN, cleanEnv, ROOT, type RunResult } from '../helpers/run-dpgw.js';

const MB = 1024 * 1024;
const ANNOUNCED = 0x7ffffff0;
/** What the hostile broker sends of its answer at most, per connection: far past the bound, so a client that buffers it shows. */
const SENT_AT_MOST = 384 * MB;
const CHUNK = Buffer.alloc(64 * 1024, 0x41);

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/**
 * A "broker" that answers the first request with a frame announcing `announced` bytes and then sends as fast as
 * the peer reads, up to SENT_AT_MOST bytes, stopping when the peer closes. `sent` tells, per connection, how much.
 */
async function hugeFrameBroker(announced = ANNOUNCED): Promise<{ address: string; sent: number[] }> {
  const sent: number[] = [];
  const server = createServer((socket: Socket) => {
    socket.on('error', () => undefined);
    const index = sent.push(0) - 1;
    socket.once('data', () => {
      const header = Buffer.alloc(4);
      header.writeInt32BE(announced | 0, 0);
      socket.write(header);
      const more = () => {
        while (!socket.destroyed && sent[index]! < SENT_AT_MOST) {
          sent[index]! += CHUNK.length;
          if (!socket.write(CHUNK)) return void socket.once('drain', more);
        }
      };
      more();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { address: `127.0.0.1:${(server.address() as AddressInfo).port}`, sent };
}

/** A "broker" that closes each connection at once: a run that reaches the brokers and reads nothing, for the baseline of memory. */
async function closingBroker(): Promise<string> {
  const server = createServer((socket) => socket.destroy());
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Node writes the process's peak resident set size (bytes) to the file MAX_RSS_FILE names when it exits. */
const REPORT_MAX_RSS = `data:text/javascript,${encodeURIComponent('import { writeFileSync } from "node:fs"; process.on("exit", () => writeFileSync(process.env.MAX_RSS_FILE, String(process.resourceUsage().maxRSS * 1024)));')}`;

/** The built CLI, as a user runs it, and its peak memory. */
function spawnMeasured(argv: string[], env: NodeJS.ProcessEnv): Promise<RunResult & { maxRss: number }> {
  const report = join(tmpdir(), `dpgw-max-rss-${process.pid}-${Math.random().toString(36).slice(2)}`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', REPORT_MAX_RSS, BIN, ...argv], { env: { ...env, MAX_RSS_FILE: report }, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, maxRss: Number(readFileSync(report, 'utf8')) }));
  });
}

const STREAM_USER = { DPGW_STREAM_USER: 'dpgw-stream', DPGW_STREAM_PASSWORD: 'stream-password-1234' };
const TOPIC = 'mock-data-library.track.track';
const refusal = (broker: string) => new RegExp(`^dpgw: ${broker}: cannot read from the brokers: ${broker} announced an answer of 2147483632 bytes, more than the 16 MB dpgw reads of a broker's answer — is it a Kafka broker's port\\? .*--broker-list`);

describe('schema infer --topic (the built CLI): a broker announcing a 2 GB answer', () => {
  for (const sasl of [false, true]) {
    it(`is refused at its length prefix: one line naming the broker, the size and the bound, exit 5, memory bounded${sasl ? ' (SASL)' : ''}`, async () => {
      const extra = sasl ? STREAM_USER : {};
      const baseline = await spawnMeasured(['schema', 'infer', '--topic', TOPIC, '--timeout', '10'], cleanEnv({ DPGW_BROKER_LIST: await closingBroker(), ...extra }));
      expect(baseline.code, baseline.stderr).toBe(5);

      const { address, sent } = await hugeFrameBroker();
      const result = await spawnMeasured(['schema', 'infer', '--topic', TOPIC, '--timeout', '10'], cleanEnv({ DPGW_BROKER_LIST: address, ...extra }));
      expect(result.code, result.stderr).toBe(5);
      expect(result.stderr.split('\n').filter((line) => line.startsWith('dpgw:'))).toEqual([expect.stringMatching(refusal(address))]);
      expect(result.stderr + result.stdout).not.toContain('stream-password-1234');
      expect(sent.length).toBeGreaterThan(0);
      // The client held at most the bound of one answer, whatever the broker sent (main held all of it: 384 MB here).
      expect(result.maxRss - baseline.maxRss).toBeLessThan(MAX_ANSWER_BYTES + 100 * MB);
    }, 60_000);
  }
});

describe('every way dpgw reaches the brokers has the bound', () => {
  const expectRefusal = async (work: Promise<unknown>, address: string) => {
    const error = await work.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DpgwError);
    expect((error as DpgwError).errorCode).toBe('STREAM_UNREACHABLE');
    expect((error as DpgwError).message).toContain(`${address} announced an answer of 2147483632 bytes, more than the 16 MB dpgw reads of a broker's answer`);
  };

  it('reading a topic (schema infer, the sample check)', async () => {
    const { address } = await hugeFrameBroker();
    await expectRefusal(sampleTopic({ brokers: [address], username: 'dpgw-stream', password: 'stream-password-1234', topic: TOPIC, limit: 10, timeoutMs: 10_000 }), address);
  });

  it('the stream pre-flight (table create, provision)', async () => {
    const { address } = await hugeFrameBroker();
    const preflight = new StreamPreflight({ brokers: [address], username: 'dpgw-stream', password: 'stream-password-1234' }, { timeoutMs: 10_000, mode: 'require' });
    try {
      await expectRefusal(preflight.check(TOPIC, 'track'), address);
    } finally {
      await preflight.close();
    }
  });

  it("the topic's end offsets (table status)", async () => {
    const { address } = await hugeFrameBroker();
    await expectRefusal(topicEndOffsets({ brokers: [address] }, TOPIC, 10_000), address);
  });

  it('a length prefix that no Kafka answer has (negative, shorter than its correlation id) is refused too', async () => {
    for (const announced of [-16, 2]) {
      const { address } = await hugeFrameBroker(announced);
      const error = await topicEndOffsets({ brokers: [address] }, TOPIC, 10_000).then(
        () => undefined,
        (e: unknown) => e as DpgwError,
      );
      expect(error?.errorCode).toBe('STREAM_UNREACHABLE');
      expect(error?.message).toContain(`${address} announced an answer of ${announced} bytes, a size no Kafka answer has`);
    }
  });
});

describe('BrokerFrames: the frames of one connection, against the budget of its client', () => {
  const frame = (size: number, body = size) => {
    const bytes = Buffer.alloc(4 + body);
    bytes.writeInt32BE(size, 0);
    return bytes;
  };
  const budget = (): FrameBudget => ({ perFrame: 10, underWay: 15, held: 0 });

  it('follows frames split anywhere, prefix included, and frees their bytes when they end', () => {
    const shared = budget();
    const frames = new BrokerFrames('b:9092', shared);
    const bytes = Buffer.concat([frame(6), frame(10), frame(4)]);
    // Cuts inside the first prefix, at a frame's end, inside a later prefix and inside bodies.
    const cuts = [0, 1, 3, 5, 9, 12, 16, 20, 29, bytes.length];
    for (let i = 1; i < cuts.length; i++) {
      expect(frames.inspect(bytes.subarray(cuts[i - 1], cuts[i]))).toBeUndefined();
      if (cuts[i] === 16) expect(shared.held).toBe(10);
    }
    expect(shared.held).toBe(0);
  });

  it('refuses a frame past the bound of one answer at its prefix', () => {
    const refused = new BrokerFrames('b:9092', budget()).inspect(frame(11, 0));
    expect(refused?.message).toBe("b:9092 announced an answer of 11 bytes, more than the 10 bytes dpgw reads of a broker's answer");
  });

  it("refuses a frame that would take the answers under way on the client's connections past their bound", () => {
    const shared = budget();
    const first = new BrokerFrames('a:9092', shared);
    const second = new BrokerFrames('b:9092', shared);
    expect(first.inspect(frame(10, 2))).toBeUndefined();
    expect(second.inspect(frame(6, 0))?.message).toBe('b:9092 announced an answer of 6 bytes, while 10 bytes of answers were under way, more than the 15 bytes dpgw holds at once');
    first.closed();
    expect(shared.held).toBe(0);
    expect(second.inspect(frame(6, 0))).toBeUndefined();
  });
});
