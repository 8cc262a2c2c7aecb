import type { FastifyInstance, FastifyRequest } from 'fastify';
import { rgError } from '../errors';

// Walked on every request's body: own keys read in place (Object.entries would copy each object into pairs).
function holdsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  // Bytes are not text: a receiver's raw body (a Buffer) would otherwise be walked index by index, finding nothing.
  if (depth > 64 || value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (holdsNul(value[i], depth + 1)) return true;
    return false;
  }
  const object = value as Record<string, unknown>;
  for (const k in object) {
    if (Object.hasOwn(object, k) && (k.includes('\u0000') || holdsNul(object[k], depth + 1))) return true;
  }
  return false;
}

/**
 * A NUL character is refused wherever the request carries text (path, query, body) with 400: PostgreSQL cannot
 * store or compare one in a text column (it would be a 500 there), and no id, name or description needs it. The
 * same answer on both stores.
 */
export function rejectNulCharacters(app: FastifyInstance): void {
  app.addHook('preValidation', async (request: FastifyRequest) => {
    for (const [where, value] of [['the path', request.params], ['the query string', request.query], ['the body', request.body]] as const) {
      if (holdsNul(value)) throw rgError('NUL_CHARACTER', { where });
    }
  });
}
