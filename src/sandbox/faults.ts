/**
 * Fault injection for tests and benchmarks: latency on every gateway request, a
 * rate of 5xx answers, a rate of dropped connections, a slow token endpoint, and
 * targeted failures ("the next table create answers 500").
 */
import { seededRandom } from './http-kit.js';

export interface FailureRule {
  method?: string;
  /** Exact path, or a prefix ending in `*`. */
  path: string;
  status: number;
  /** How many matching requests fail; then the rule is spent. Default 1. */
  times?: number;
  body?: unknown;
}

export interface FaultSettings {
  /** Added before every gateway answer. */
  latencyMs: number;
  /** Fraction (0–1) of gateway /api requests answered 503. */
  failureRate: number;
  /** Fraction (0–1) of gateway requests whose connection is destroyed without an answer. */
  dropRate: number;
  /** Added before every token endpoint answer. */
  tokenDelayMs: number;
  /** How many of the next token endpoint requests answer 503 (an identity provider that is down). */
  tokenFailures: number;
  /** Retry-After (seconds) on the 503s of `failureRate`, as a gateway behind a load balancer sends it. */
  retryAfterSeconds?: number;
  /** The 503s of `failureRate` hit one method and path at most this many times in a row (unset: no bound). */
  maxConsecutiveFailures?: number;
  failures: FailureRule[];
}

export const NO_FAULTS: FaultSettings = { latencyMs: 0, failureRate: 0, dropRate: 0, tokenDelayMs: 0, tokenFailures: 0, failures: [] };

export type FaultDecision = { kind: 'none' } | { kind: 'drop' } | { kind: 'fail'; status: number; body?: unknown };

export class Faults {
  settings: FaultSettings;
  private random: () => number;
  /** Failures of `failureRate` in a row, by method and path. */
  private readonly streaks = new Map<string, number>();

  constructor(initial: Partial<FaultSettings> = {}, seed = 42) {
    this.settings = { ...NO_FAULTS, ...initial, failures: [...(initial.failures ?? [])] };
    this.random = seededRandom(seed);
  }

  update(patch: Partial<FaultSettings>): void {
    this.settings = { ...this.settings, ...patch, failures: patch.failures ? [...patch.failures] : this.settings.failures };
    for (const [name, value] of Object.entries({ failureRate: this.settings.failureRate, dropRate: this.settings.dropRate })) {
      if (!(value >= 0 && value <= 1)) throw new RangeError(`${name} must be between 0 and 1`);
    }
  }

  reset(): void {
    this.settings = { ...NO_FAULTS, failures: [] };
  }

  /** Whether this token request fails (one of `tokenFailures`, which it spends). */
  takeTokenFailure(): boolean {
    if (this.settings.tokenFailures <= 0) return false;
    this.settings.tokenFailures--;
    return true;
  }

  /** What happens to a gateway request. Targeted rules first, then the random rates. */
  decide(method: string, path: string): FaultDecision {
    const rule = this.settings.failures.find((r) => (r.method === undefined || r.method.toUpperCase() === method) && matches(r.path, path));
    if (rule) {
      rule.times = (rule.times ?? 1) - 1;
      if (rule.times <= 0) this.settings.failures = this.settings.failures.filter((r) => r !== rule);
      return { kind: 'fail', status: rule.status, body: rule.body };
    }
    if (this.settings.dropRate > 0 && this.random() < this.settings.dropRate) return { kind: 'drop' };
    if (this.settings.failureRate > 0 && path.startsWith('/api/')) {
      const key = `${method} ${path}`;
      const streak = this.streaks.get(key) ?? 0;
      const bounded = this.settings.maxConsecutiveFailures !== undefined && streak >= this.settings.maxConsecutiveFailures;
      if (!bounded && this.random() < this.settings.failureRate) {
        this.streaks.set(key, streak + 1);
        return { kind: 'fail', status: 503 };
      }
      this.streaks.delete(key);
    }
    return { kind: 'none' };
  }
}

function matches(pattern: string, path: string): boolean {
  return pattern.endsWith('*') ? path.startsWith(pattern.slice(0, -1)) : pattern === path;
}
