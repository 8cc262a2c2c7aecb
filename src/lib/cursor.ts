import { rgError } from '../errors';

/** Keyset cursor over (createdAt, id): opaque to clients, stable under inserts. */
export function encodeCursor(c: { createdAt: string; id: string }): string {
  return Buffer.from(`${c.createdAt}|${c.id}`).toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: string; id: string } {
  const [createdAt, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (!createdAt || !id || Number.isNaN(Date.parse(createdAt))) throw rgError('CURSOR_INVALID');
  return { createdAt, id };
}
