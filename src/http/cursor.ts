import { rgError } from '../errors';

// Keyset pagination cursors of the list routes: the last row's created_at and id, opaque to clients.

export function encodeCursor(c: { createdAt: string; id: string }): string {
  return Buffer.from(`${c.createdAt}|${c.id}`).toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: string; id: string } {
  const [createdAt, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (!createdAt || !id || Number.isNaN(Date.parse(createdAt))) throw rgError('CURSOR_INVALID');
  return { createdAt, id };
}
