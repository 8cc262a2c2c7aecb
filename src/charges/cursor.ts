import { rgError } from '../errors';

/** The position after a listed charge (keyset pagination): opaque to clients, used by GET /charges and the dashboard. */
export function encodeCursor(c: { createdAt: string; id: string }): string {
  return Buffer.from(`${c.createdAt}|${c.id}`).toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: string; id: string } {
  const [createdAt, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (!createdAt || !id || Number.isNaN(Date.parse(createdAt))) throw rgError('CURSOR_INVALID');
  return { createdAt, id };
}
