import type { FastifyInstance, FastifyRequest } from 'fastify';
import { rgError } from '../errors';
import type { Store } from '../store';
import type { AccountRow, SettingsRow } from '../store/accounts';
import { API_KEY_PATTERN, hashApiKey } from './api-keys';

declare module 'fastify' {
  interface FastifyRequest {
    account: AccountRow;
    /** The account's settings as they were when the request was authenticated; used for the whole request. */
    settings: SettingsRow;
  }
}

/** Query parameters that would put a key in URLs, proxies' logs and browser history. */
export const KEY_QUERY_PARAMS = ['api_key', 'x-api-key', 'apikey', 'apiKey', 'key'];

export function keyInQuery(request: FastifyRequest): boolean {
  const q = request.query as Record<string, unknown> | undefined;
  return !!q && KEY_QUERY_PARAMS.some((p) => Object.prototype.hasOwnProperty.call(q, p));
}

/**
 * `x-api-key` -> request.account, as an onRequest hook of the context it is installed in (the /api/v1 routes;
 * webhook receivers live outside it). Keys are found by their SHA-256 through a unique index: timing can
 * only reveal how a hash of the guess compares, which says nothing usable about any real key.
 */
export function installAuth(app: FastifyInstance, store: Store): void {
  app.addHook('onRequest', async (request) => {
    if (keyInQuery(request)) {
      throw rgError('API_KEY_IN_URL');
    }
    const header = request.headers['x-api-key'];
    await authenticate(request, store, Array.isArray(header) ? header[0] : header);
  });
}

/**
 * The account behind a RouteGate key, set on the request (compatibility mode's native paths read the key from the
 * gateway's own auth header, src/compat/native-auth.ts, and authenticate the same way).
 */
export async function authenticate(request: FastifyRequest, store: Store, key: string | undefined): Promise<void> {
  if (key === undefined || key === '') throw rgError('MISSING_API_KEY');
  if (!API_KEY_PATTERN.test(key)) throw rgError('INVALID_API_KEY');
  const hash = hashApiKey(key);
  const record = await store.apiKeys.findByHash(hash);
  if (!record || record.revoked) throw rgError('INVALID_API_KEY');
  const account = await store.accounts.get(record.accountId);
  if (!account) throw rgError('INVALID_API_KEY');
  if (!account.active) throw rgError('CLIENT_INACTIVE');
  // One consistent view of the account per request: key, account and settings are read here, once.
  request.account = account;
  request.settings = await store.accounts.settings(account.id);
}
