/**
 * How dpgw itself reaches the message stream (to read a topic's messages, to check it before
 * a table): the same brokers, stream user and password the table definition carries for the
 * analytics store, with SASL_PLAINTEXT and SCRAM-SHA-512.
 */
import { DpgwError } from '../errors/dpgw-error.js';

export interface StreamConnection {
  brokers: string[];
  /** Unset: the brokers are reached without SASL. */
  username?: string;
  password?: string;
}

/** The connection for a stream user and its password (resolved by the caller, once for a run). */
export function streamConnection(brokers: string[], username: string | undefined, password: string | undefined): StreamConnection {
  if (username === undefined) return { brokers };
  if (password === undefined) {
    throw new DpgwError('SETTING_MISSING', `stream user ${username} needs the stream password, and there is no terminal to ask for it`, {
      where: 'streamPassword',
      hint: 'set DPGW_STREAM_PASSWORD, or pass --stream-password env:NAME | file:PATH | exec:CMD',
    });
  }
  return { brokers, username, password };
}
