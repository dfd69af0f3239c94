/**
 * The page a person opens for `dpgw login --grant device` on the sandbox (`{issuer}/device`,
 * RFC 8628 §3.3's verification URI): the user code (prefilled from `?user_code=`), a sandbox
 * user's name and password, Approve and Deny. The form posts back to the same address.
 *
 * One address, two readers: a browser (its `Accept` names `text/html`) gets a page saying what
 * happened; a script (curl, fetch: `Accept: *\/*` or none) gets the JSON answers the sandbox
 * always gave, so `curl -d user_code=… -d username=… -d password=…` keeps working. A GET is
 * always the page.
 *
 * Every value written into the page is escaped (the code comes from the query string); the page
 * runs no script, and its headers forbid framing and any source but its own style, as
 * Keycloak's login pages do. No CSRF token: the sandbox is a local emulator on 127.0.0.1.
 */
import { createHash } from 'node:crypto';

export interface DevicePageRequest {
  method: string;
  query: URLSearchParams;
  form: Record<string, string>;
  /** The request's Accept header: `text/html` in it means a browser. */
  accept: string | undefined;
}

/** What the page needs of the identity provider. */
export interface DeviceDecisions {
  realm: string;
  users: ReadonlyArray<{ username: string; password: string }>;
  /** The client that asked for this code, while a device waits for it (known, not expired, not yet decided); else undefined. */
  clientWaiting(userCode: string): string | undefined;
  /** Approve as a user, or deny; false when no device waits for the code. */
  decide(userCode: string, decision: { approvedBy: string } | 'denied'): boolean;
}

export interface DevicePageAnswer {
  status: number;
  /** For a script: the JSON body. */
  body?: unknown;
  /** For a browser: the page, sent with `headers`. */
  html?: string;
  headers?: Record<string, string>;
}

/** A GET shows the form; a POST approves (after the user's password) or denies (`deny=true`, the Deny button). */
export function answerDevicePage(request: DevicePageRequest, decisions: DeviceDecisions): DevicePageAnswer {
  if (request.method === 'GET') {
    const code = request.query.get('user_code') ?? '';
    const client = code !== '' ? decisions.clientWaiting(code) : undefined;
    const notice = code !== '' ? (client === undefined ? noCodeNotice(code) : clientNotice(client)) : undefined;
    return page(200, decisions.realm, form({ code, notice }));
  }
  const browser = /\btext\/html\b/i.test(request.accept ?? '');
  const { form: fields } = request;
  const code = fields.user_code ?? '';
  if (fields.deny === 'true') {
    if (!decisions.decide(code, 'denied')) return browser ? page(400, decisions.realm, form({ code, notice: noCodeNotice(code) })) : { status: 400, body: { error: 'invalid_code' } };
    return browser ? page(200, decisions.realm, outcome('Sign-in denied', `The device that asked with code ${escapeHtml(code)} is not signed in; dpgw stops waiting and says so. You can close this page.`)) : { status: 200, body: { denied: true } };
  }
  const user = decisions.users.find((u) => u.username === fields.username);
  if (!user || user.password !== fields.password) {
    const notice = { kind: 'error' as const, text: 'Wrong username or password: sign in as one of the users <code>dpgw sandbox</code> printed.' };
    return browser ? page(401, decisions.realm, form({ code, username: fields.username, notice })) : { status: 401, body: { error: 'invalid_grant', error_description: 'Invalid user credentials' } };
  }
  if (!decisions.decide(code, { approvedBy: user.username })) return browser ? page(400, decisions.realm, form({ code, username: user.username, notice: noCodeNotice(code) })) : { status: 400, body: { error: 'invalid_code' } };
  return browser
    ? page(200, decisions.realm, outcome('Device signed in', `Approved as <strong>${escapeHtml(user.username)}</strong>: the waiting <code>dpgw login</code> finishes signed in as this user. You can close this page.`))
    : { status: 200, body: { approved: true } };
}

interface Notice {
  kind: 'error' | 'info';
  /** HTML: every value in it already escaped. */
  text: string;
}

/**
 * Which client asked, and that only a code the person started is to be approved (RFC 8628 §5.4, remote phishing:
 * anyone can start a device sign-in and send a person this address with their code in it; approving it signs the
 * sender in as that person). Keycloak's device page likewise names the client that asks.
 */
function clientNotice(clientId: string): Notice {
  return { kind: 'info', text: `Client <code>${escapeHtml(clientId)}</code> asks to sign in. Approve only a code your own <code>dpgw login --grant device</code> printed: approving a code someone sent you signs them in as you.` };
}

function noCodeNotice(code: string): Notice {
  return { kind: 'error', text: `No sign-in waits for code <code>${escapeHtml(code)}</code>: it is unknown, expired or already decided. Run <code>dpgw login --grant device</code> again for a new code.` };
}

function form({ code, username = '', notice }: { code: string; username?: string; notice?: Notice }): string {
  return [
    '<h1>Sign in a device</h1>',
    '<p>A <code>dpgw login --grant device</code> waits for this code. Sign in as a sandbox user to approve it, or deny it.</p>',
    notice ? `<p class="${notice.kind}"${notice.kind === 'error' ? ' role="alert"' : ''}>${notice.text}</p>` : '',
    // No action attribute: the form posts to the address it was opened at.
    '<form method="post">',
    `<label for="user_code">Code</label><input id="user_code" name="user_code" value="${escapeHtml(code)}" required autocomplete="off" autocapitalize="characters" spellcheck="false">`,
    `<label for="username">Username</label><input id="username" name="username" value="${escapeHtml(username)}" required autocomplete="username">`,
    '<label for="password">Password</label><input id="password" name="password" type="password" required autocomplete="current-password">',
    // Deny needs no password (formnovalidate skips the required fields), as the JSON answer for scripts never did.
    '<p class="buttons"><button type="submit" name="approve" value="true" id="approve">Approve</button> <button type="submit" name="deny" value="true" id="deny" formnovalidate>Deny</button></p>',
    '</form>',
  ].join('\n');
}

function outcome(title: string, text: string): string {
  return `<h1>${escapeHtml(title)}</h1>\n<p id="outcome">${text}</p>`;
}

const STYLE = 'body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}label{display:block;margin-top:.8rem}input{width:100%;padding:.4rem;font-size:1rem;box-sizing:border-box}.buttons{margin-top:1.2rem}.error{color:#a00}';
/** The one inline style, allowed by its hash: the page allows nothing else (no script at all). */
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

function page(status: number, realm: string, content: string): DevicePageAnswer {
  const html = [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>Sign in a device: realm ${escapeHtml(realm)} (dpgw sandbox)</title>`,
    `<style>${STYLE}</style></head>`,
    `<body>\n${content}\n</body>`,
    '</html>',
    '',
  ].join('\n');
  return {
    status,
    html,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      // As Keycloak's login pages send them (frame-ancestors 'self', X-Frame-Options SAMEORIGIN,
      // nosniff, no referrer), and tighter where the page allows it: no script, form posts to itself only.
      'content-security-policy': `default-src 'none'; style-src ${STYLE_HASH}; form-action 'self'; frame-ancestors 'self'; base-uri 'none'`,
      'x-frame-options': 'SAMEORIGIN',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-robots-tag': 'none',
    },
  };
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
