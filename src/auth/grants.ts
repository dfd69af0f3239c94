/** How dpgw signs in (the grant setting): a module of its own, as settings checks load it at start-up. */
export type Grant = 'password' | 'client-credentials' | 'device';
export const GRANTS: readonly Grant[] = ['password', 'client-credentials', 'device'];
