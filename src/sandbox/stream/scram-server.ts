/**
 * The server side of SASL SCRAM-SHA-512 (RFC 5802, RFC 7677's construction with
 * SHA-512) as a Kafka broker runs it: the broker keeps only the salt, iteration
 * count, StoredKey and ServerKey of each user, checks the client's proof, and
 * proves itself back with the server signature.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

/** Kafka's minimum (and usual) iteration count for SCRAM credentials. */
export const SCRAM_ITERATIONS = 4096;

export interface ScramCredential {
  salt: Buffer;
  iterations: number;
  storedKey: Buffer;
  serverKey: Buffer;
}

const hmac = (key: Buffer, text: string) => createHmac('sha512', key).update(text).digest();

export function scramCredential(password: string, iterations = SCRAM_ITERATIONS): ScramCredential {
  const salt = randomBytes(24);
  const salted = pbkdf2Sync(password.normalize('NFKC'), salt, iterations, 64, 'sha512');
  return { salt, iterations, storedKey: createHash('sha512').update(hmac(salted, 'Client Key')).digest(), serverKey: hmac(salted, 'Server Key') };
}

/** Why an exchange failed; the broker answers every one of them alike, as Kafka does. */
export class ScramRefused extends Error {}

/** One exchange: the client's first message, then its final one. */
export class ScramExchange {
  private clientFirstBare = '';
  private serverFirst = '';
  private nonce = '';
  private gs2Header = '';
  private credential: ScramCredential | undefined;
  private user = '';
  /** The user, once the proof is checked. */
  authenticated: string | undefined;

  constructor(private readonly credentials: (user: string) => ScramCredential | undefined) {}

  /** client-first-message → server-first-message. */
  first(message: string): string {
    const match = /^([ny]|p=[^,]*),(a=[^,]*)?,(.*)$/.exec(message);
    if (!match) throw new ScramRefused('malformed client-first message');
    this.gs2Header = `${match[1]},${match[2] ?? ''},`;
    this.clientFirstBare = match[3]!;
    const attributes = parseAttributes(this.clientFirstBare);
    const user = attributes.get('n')?.replace(/=2C/g, ',').replace(/=3D/g, '=');
    const clientNonce = attributes.get('r');
    if (!user || !clientNonce) throw new ScramRefused('client-first message without user or nonce');
    this.credential = this.credentials(user);
    if (!this.credential) throw new ScramRefused(`unknown user ${user}`);
    this.user = user;
    this.nonce = clientNonce + randomBytes(18).toString('base64');
    this.serverFirst = `r=${this.nonce},s=${this.credential.salt.toString('base64')},i=${this.credential.iterations}`;
    return this.serverFirst;
  }

  /** client-final-message → server-final-message; throws when the proof is wrong. */
  final(message: string): string {
    if (!this.credential) throw new ScramRefused('client-final message before client-first');
    const attributes = parseAttributes(message);
    const proof = Buffer.from(attributes.get('p') ?? '', 'base64');
    if (attributes.get('r') !== this.nonce) throw new ScramRefused('nonce mismatch');
    if (attributes.get('c') !== Buffer.from(this.gs2Header).toString('base64')) throw new ScramRefused('channel binding mismatch');
    const withoutProof = message.slice(0, message.lastIndexOf(',p='));
    const authMessage = `${this.clientFirstBare},${this.serverFirst},${withoutProof}`;
    const clientSignature = hmac(this.credential.storedKey, authMessage);
    if (proof.length !== clientSignature.length) throw new ScramRefused('proof of the wrong length');
    const clientKey = Buffer.from(proof.map((byte, i) => byte ^ clientSignature[i]!));
    if (!timingSafeEqual(createHash('sha512').update(clientKey).digest(), this.credential.storedKey)) throw new ScramRefused('wrong password');
    this.authenticated = this.user;
    return `v=${hmac(this.credential.serverKey, authMessage).toString('base64')}`;
  }
}

function parseAttributes(text: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const part of text.split(',')) {
    const at = part.indexOf('=');
    if (at === 1) attributes.set(part[0]!, part.slice(2));
  }
  return attributes;
}
