/**
 * The stream pre-flight: before a table is sent, dpgw connects to the brokers with
 * the stream settings the table will carry (broker list, stream user, stream
 * password) and asks for the table's topic. A refused stream user, a missing topic,
 * a partition without a leader or unreachable brokers mean the store would never
 * consume the table: the table is not sent.
 *
 * One connection serves a whole run: it signs in once (ApiVersions and the SCRAM
 * exchange), and each data set then costs one Metadata round trip to one broker.
 * The client (@platformatic/kafka) is imported on first use.
 */
import type * as KafkaClient from '@platformatic/kafka';
import { DpgwError } from '../errors/dpgw-error.js';
import { plural } from '../text/plural.js';
import type { StreamConnection } from './stream-connection.js';
import { unreachableBrokers } from './broker-reachability.js';
import type { StreamCheckMode } from './stream-check-mode.js';
import { boundBrokerFrames } from './broker-frames.js';
import { DeadlineReached, ignoreLateConnectionErrors, streamError } from './stream-errors.js';

export interface TopicFacts {
  topic: string;
  partitions: number;
}

export interface StreamPreflightOptions {
  /** Each request, connecting included. */
  timeoutMs: number;
  trace?: (line: string) => void;
  /** auto: brokers that cannot be reached from here skip the check (check()); require: they fail it. */
  mode?: Exclude<StreamCheckMode, 'off'>;
}


/** What the pre-flight found for one table: the topic's facts, or why it was skipped. */
export type PreflightOutcome = { kind: 'passed'; facts: TopicFacts } | { kind: 'skipped'; why: string };

/** How long the reachability probe of `auto` waits for a broker's TCP connection, at most. */
const PROBE_TIMEOUT_MS = 5_000;

const CLIENT_ID = 'dpgw-stream-check';
/** Said with every refusal: the flag for a dpgw that cannot reach the brokers the store reaches. */
export const SKIP_STREAM_CHECK_FLAG = '--stream-check off';

/** The one warning of a skipped pre-flight (`auto`, brokers out of reach from here). */
export function streamCheckSkipped(why: string, tables: 'one' | 'each' = 'each'): string {
  const sent = tables === 'one' ? 'the table is sent, and the consumption check after it proves' : 'tables are sent, and the consumption check after each proves';
  return `stream pre-flight skipped: ${why}; ${sent} the stream (--stream-check require makes this an error)`;
}

type Admin = InstanceType<typeof KafkaClient.Admin>;

export class StreamPreflight {
  private admin: Promise<Admin> | undefined;
  /** Rejects when a broker's answer passes the bounds (src/stream/broker-frames.ts); every request is raced with it. */
  private framesRefused: Promise<never> | undefined;
  private signedIn: Promise<void> | undefined;
  private reachability: Promise<string | undefined> | undefined;

  constructor(
    readonly connection: StreamConnection,
    private readonly options: StreamPreflightOptions,
  ) {}

  /** How the brokers are reached, for the run's lines. */
  describe(): string {
    return `${this.connection.brokers.join(',')}${this.connection.username !== undefined ? ` as ${this.connection.username} (SASL SCRAM-SHA-512)` : ' (no SASL)'}`;
  }

  private client(): Promise<Admin> {
    this.admin ??= import('@platformatic/kafka').then(({ Admin }) => {
      const admin = new Admin({
        clientId: CLIENT_ID,
        bootstrapBrokers: this.connection.brokers,
        ...(this.connection.username !== undefined ? { sasl: { mechanism: 'SCRAM-SHA-512' as const, username: this.connection.username, password: this.connection.password ?? '' } } : {}),
        connectTimeout: Math.min(this.options.timeoutMs, 10_000),
        timeout: this.options.timeoutMs,
        retries: 0,
        autocreateTopics: false,
      });
      ignoreLateConnectionErrors(admin);
      this.framesRefused = boundBrokerFrames(admin).refused;
      return admin;
    });
    return this.admin;
  }

  /**
   * Connects and signs in once (a Metadata request for no topic); every caller shares the
   * outcome. `subject` names what would never consume when the brokers refuse ("table X").
   */
  async signIn(subject = 'the tables'): Promise<void> {
    this.signedIn ??= (async () => {
      this.options.trace?.(`stream: signing in to ${this.describe()}`);
      const admin = await this.client();
      await this.bounded('connecting', admin.metadata({ topics: [], forceUpdate: true }));
    })();
    await this.signedIn.catch((error: unknown) => {
      throw this.refusal(error, subject);
    });
  }

  /**
   * The pre-flight of one table as its mode says: with `auto`, brokers that do not resolve or accept no connection
   * from here (probed once per run, nothing sent) skip it, with why; brokers that answer get the whole check, and
   * their refusals (SASL, a missing topic, no read access) are errors as with `require`.
   */
  async check(topic: string, table: string): Promise<PreflightOutcome> {
    const why = await this.skippedBecause();
    if (why !== undefined) return { kind: 'skipped', why };
    return { kind: 'passed', facts: await this.topic(topic, table) };
  }

  /** With `auto`, why the check is skipped (the brokers cannot be reached from here); a plan asks this too. */
  skippedBecause(): Promise<string | undefined> {
    if (this.options.mode !== 'auto') return Promise.resolve(undefined);
    this.reachability ??= unreachableBrokers(this.connection.brokers, Math.min(this.options.timeoutMs, PROBE_TIMEOUT_MS)).then((why) => {
      if (why !== undefined) this.options.trace?.(`stream: ${why}; pre-flight skipped`);
      return why;
    });
    return this.reachability;
  }

  /** The topic's partitions, each with a leader; `table` names what would never consume otherwise. */
  async topic(topic: string, table: string): Promise<TopicFacts> {
    await this.signIn(`table ${table}`);
    const admin = await this.client();
    this.options.trace?.(`stream: metadata of ${topic}`);
    let metadata;
    try {
      metadata = await this.bounded('asking for the topic', admin.metadata({ topics: [topic], forceUpdate: true }));
    } catch (error) {
      throw this.refusal(error, `table ${table}`, topic);
    }
    const facts = metadata.topics.get(topic);
    if (!facts) throw this.refusal(new DpgwError('TOPIC_NOT_FOUND', `topic ${topic} does not exist on the brokers`, { where: this.connection.brokers.join(',') }), `table ${table}`, topic);
    const leaderless = facts.partitions.flatMap((p, index) => (p.leader < 0 ? [index] : []));
    if (leaderless.length > 0) {
      throw this.refusal(new DpgwError('TOPIC_NO_LEADER', `${plural(leaderless.length, 'partition')} of topic ${topic} (${leaderless.join(', ')}) ${leaderless.length === 1 ? 'has' : 'have'} no leader`, { where: this.connection.brokers.join(',') }), `table ${table}`, topic);
    }
    return { topic, partitions: facts.partitions.length };
  }

  async close(): Promise<void> {
    if (!this.admin) return;
    const admin = await this.admin;
    await new Promise<void>((resolve) => admin.close(() => resolve()));
  }

  private bounded<T>(what: string, work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeadlineReached(what)), this.options.timeoutMs);
    });
    return Promise.race([work, late, ...(this.framesRefused ? [this.framesRefused] : [])]).finally(() => clearTimeout(timer));
  }

  /** "table X would never consume: <why>", keeping the kind (exit code) and where of the cause. */
  private refusal(error: unknown, subject: string, topic?: string): DpgwError {
    const cause =
      error instanceof DeadlineReached
        ? new DpgwError('STREAM_UNREACHABLE', `the brokers did not answer within ${this.options.timeoutMs / 1000} s (${error.what})`, { where: this.connection.brokers.join(','), hint: 'check --broker-list, or give it more time with --timeout <seconds>' })
        : streamError(error, this.connection, topic ?? '(none)', this.options.timeoutMs);
    const hint = `${cause.hint ? `${cause.hint}; ` : ''}${subject.startsWith('table ') ? 'the table was not sent' : 'nothing was sent'}; where dpgw cannot reach the brokers the store reaches, pass ${SKIP_STREAM_CHECK_FLAG}`;
    return new DpgwError(cause.errorCode, `${subject} would never consume: ${cause.message}`, { where: cause.where, hint, cause: error });
  }
}
