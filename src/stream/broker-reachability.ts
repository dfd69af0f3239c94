/**
 * Can the brokers be reached from here at all? The table's broker list names the address
 * the store's servers use (often an in-cluster name such as `mq-bootstrap:9092`), which a
 * laptop or a hosted CI runner usually cannot resolve. With `--stream-check auto` such
 * brokers skip the pre-flight with one warning instead of failing the run; brokers that
 * accept a connection go on to the real pre-flight, whose refusals stay errors.
 *
 * The probe opens a TCP connection to each broker and closes it at once: nothing is sent,
 * no credential, no Kafka request.
 */
import { connect } from 'node:net';

/** Why no broker could be reached from here, or undefined when one accepted a connection. */
export async function unreachableBrokers(brokers: readonly string[], timeoutMs: number): Promise<string | undefined> {
  const outcomes = await Promise.all(brokers.map((broker) => probe(broker, timeoutMs)));
  if (outcomes.some((outcome) => outcome === undefined)) return undefined;
  const shown = outcomes.slice(0, 3).join('; ');
  return `${brokers.length === 1 ? 'the broker cannot' : `none of the ${brokers.length} brokers can`} be reached from here (${shown}${outcomes.length > 3 ? '; …' : ''})`;
}

/** undefined when the broker accepted a connection, else why not. */
function probe(broker: string, timeoutMs: number): Promise<string | undefined> {
  const colon = broker.lastIndexOf(':');
  const host = broker.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  const port = Number(broker.slice(colon + 1));
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (outcome: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => done(`${broker}: no connection within ${Math.round(timeoutMs / 100) / 10} s`), timeoutMs);
    socket.once('connect', () => done(undefined));
    socket.once('error', (error: NodeJS.ErrnoException) => done(`${broker}: ${describeCode(error.code, host)}`));
  });
}

function describeCode(code: string | undefined, host: string): string {
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${host} does not resolve (${code})`;
    case 'ECONNREFUSED':
      return `connection refused (${code})`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `no route (${code})`;
    default:
      return code ?? 'no connection';
  }
}
