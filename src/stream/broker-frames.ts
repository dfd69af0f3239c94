/**
 * How much of a broker's answers dpgw holds (docs/trust-boundary.md, "Caches and sign-in").
 * A Kafka answer starts with its length (4 bytes, big-endian), and the client
 * (@platformatic/kafka 1.35) keeps every byte of an answer until as many as that length
 * says have arrived, with no bound of its own: a broker announcing 0x7ffffff0 bytes and sending on made dpgw
 * hold 1.49 GB in 10 s. A peer on the broker port that speaks something else announces as
 * much by accident ("HTTP" reads as 1.2 billion bytes, a TLS alert as 352 million).
 *
 * The client has no option for it and builds its sockets itself, so each connection's
 * socket is watched from the client's own 'connecting' event (public API): a listener
 * placed before the client's reads every length prefix, and an answer past a bound is
 * refused there, its socket destroyed, before the client has buffered more than the
 * chunk at hand.
 */
import { MAX_ANSWER_BYTES, MAX_RUN_ANSWER_BYTES } from '../net/answer-bounds.js';

/**
 * The bounds: one answer as one HTTP answer (16 MB; dpgw's own requests ask for far less:
 * a Fetch for at most FETCH_MAX_BYTES, Metadata and ListOffsets for one topic), and the
 * answers under way on all connections of one client at once as a client's HTTP answers in
 * a run (256 MB), so brokers named by a broker's metadata cannot multiply the first bound.
 */
export const BROKER_FRAME_BOUNDS = { perFrame: MAX_ANSWER_BYTES, underWay: MAX_RUN_ANSWER_BYTES } as const;

/**
 * The most a Fetch of dpgw asks for: half of one answer's bound, as a broker sends the first
 * record batch whole even past the request's limit (a batch is 1 MB at most by Kafka's
 * default) and adds a header for each partition.
 */
export const FETCH_MAX_BYTES = MAX_ANSWER_BYTES / 2;

/** The bytes announced by the answers under way on a client's connections, against its bounds. */
export interface FrameBudget {
  perFrame: number;
  underWay: number;
  held: number;
}

/** An answer refused at its length prefix. */
export class BrokerFrameRefused extends Error {
  constructor(
    readonly broker: string,
    readonly announced: number,
    why: string,
  ) {
    super(`${broker} announced an answer of ${announced} bytes, ${why}`);
  }
}

/** The smallest answer: its correlation id. */
const CORRELATION_ID_BYTES = 4;
const MB = 1024 * 1024;

const shown = (bytes: number) => (bytes >= MB && bytes % MB === 0 ? `${bytes / MB} MB` : `${bytes} bytes`);

/** Follows the answers of one connection, prefix by prefix, chunks split anywhere. */
export class BrokerFrames {
  private readonly prefix = Buffer.alloc(4);
  private prefixRead = 0;
  /** What the answer under way announced, until its last byte. */
  private announced = 0;
  private left = 0;

  constructor(
    private readonly broker: string,
    private readonly budget: FrameBudget,
  ) {}

  /** Undefined while every answer keeps within the bounds, else the refusal (and nothing more is to be read). */
  inspect(chunk: Buffer): BrokerFrameRefused | undefined {
    let at = 0;
    while (at < chunk.length) {
      if (this.left > 0) {
        const taken = Math.min(this.left, chunk.length - at);
        this.left -= taken;
        at += taken;
        if (this.left === 0) this.release();
        continue;
      }
      const taken = Math.min(4 - this.prefixRead, chunk.length - at);
      chunk.copy(this.prefix, this.prefixRead, at, at + taken);
      this.prefixRead += taken;
      at += taken;
      if (this.prefixRead < 4) break;
      this.prefixRead = 0;
      // Signed, as the client reads it.
      const size = this.prefix.readInt32BE(0);
      if (size < CORRELATION_ID_BYTES) return new BrokerFrameRefused(this.broker, size, 'a size no Kafka answer has');
      if (size > this.budget.perFrame) return new BrokerFrameRefused(this.broker, size, `more than the ${shown(this.budget.perFrame)} dpgw reads of a broker's answer`);
      if (this.budget.held + size > this.budget.underWay) {
        return new BrokerFrameRefused(this.broker, size, `while ${shown(this.budget.held)} of answers were under way, more than the ${shown(this.budget.underWay)} dpgw holds at once`);
      }
      this.budget.held += size;
      this.announced = size;
      this.left = size;
    }
    return undefined;
  }

  /** The connection ended: what its answer under way announced is free again. */
  closed(): void {
    this.release();
    this.left = 0;
  }

  private release(): void {
    this.budget.held -= this.announced;
    this.announced = 0;
  }
}

/** What boundBrokerFrames needs of a client (an Admin, a Consumer): its pool's 'connecting' event and each connection's socket. */
interface WatchedClient {
  connections: {
    on(event: 'connecting', listener: (payload: { broker: { host: string; port: number }; connection: { socket: (NodeJS.EventEmitter & { destroy(error?: Error): unknown; destroyed: boolean }) | undefined } }) => void): unknown;
  };
}

/**
 * Bounds the answers of every connection the client opens. `refused` rejects with the
 * first refusal (a BrokerFrameRefused): race the client's requests with it, as the client
 * itself only learns that its connection closed.
 */
export function boundBrokerFrames(client: WatchedClient, bounds: Omit<FrameBudget, 'held'> = BROKER_FRAME_BOUNDS): { refused: Promise<never> } {
  const budget: FrameBudget = { ...bounds, held: 0 };
  let refuse!: (error: BrokerFrameRefused) => void;
  const refused = new Promise<never>((_, reject) => (refuse = reject));
  // Handled here: a run whose requests are all answered never looks at it.
  refused.catch(() => undefined);
  client.connections.on('connecting', ({ broker, connection }) => {
    // The client creates the socket right after this event, in the same turn; no byte arrives before a microtask.
    queueMicrotask(() => {
      const socket = connection.socket;
      // No socket: connecting failed before one was made, and the client says so itself.
      if (socket === undefined) return;
      const frames = new BrokerFrames(`${broker.host}:${broker.port}`, budget);
      // First in line, so a refused answer's bytes never reach the client's buffer past the chunk at hand.
      socket.prependListener('data', (chunk: Buffer) => {
        if (socket.destroyed) return;
        const refusal = frames.inspect(chunk);
        if (refusal === undefined) return;
        refuse(refusal);
        socket.destroy(refusal);
      });
      socket.once('close', () => frames.closed());
    });
  });
  return { refused };
}
