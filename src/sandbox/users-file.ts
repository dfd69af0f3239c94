/**
 * `dpgw sandbox --users <file>`: the sandbox's users and clients with their
 * passwords, so a team can keep fixed credentials for its local runs.
 *
 *   users:
 *     - { username: admin, password: "…", groups: [platform-admins] }
 *   clients:
 *     - { clientId: dpgw-backend, secret: "…", directAccessGrants: true }
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import type { SandboxClient, SandboxUser } from './identity-provider.js';

export class UsersFileError extends Error {}

export async function readUsersFile(path: string): Promise<{ users?: SandboxUser[]; clients?: SandboxClient[] }> {
  let document: unknown;
  try {
    document = parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new UsersFileError(`${path}: ${(error as Error).message.split('\n')[0]}`);
  }
  if (document === null || typeof document !== 'object') throw new UsersFileError(`${path}: expected a mapping with users and clients`);
  const { users, clients } = document as { users?: unknown; clients?: unknown };
  const result: { users?: SandboxUser[]; clients?: SandboxClient[] } = {};
  if (users !== undefined) {
    if (!Array.isArray(users)) throw new UsersFileError(`${path}: users must be a list`);
    result.users = users.map((u, index) => {
      const user = u as Partial<SandboxUser>;
      if (typeof user.username !== 'string' || typeof user.password !== 'string') throw new UsersFileError(`${path}: users[${index}] needs username and password`);
      return { ...user, username: user.username, password: user.password, groups: Array.isArray(user.groups) ? user.groups.map(String) : [] };
    });
  }
  if (clients !== undefined) {
    if (!Array.isArray(clients)) throw new UsersFileError(`${path}: clients must be a list`);
    result.clients = clients.map((c, index) => {
      const client = c as Partial<SandboxClient>;
      if (typeof client.clientId !== 'string' || typeof client.secret !== 'string') throw new UsersFileError(`${path}: clients[${index}] needs clientId and secret`);
      return { clientId: client.clientId, secret: client.secret, directAccessGrants: client.directAccessGrants !== false };
    });
  }
  return result;
}
