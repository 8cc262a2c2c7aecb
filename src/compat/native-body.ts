import qs from 'qs';
import { rgError } from '../errors';
import type { CompatSurface } from './types';

/**
 * A native body as its gateway's clients send it: JSON, or (where the gateway's API uses it)
 * application/x-www-form-urlencoded in bracket notation, decoded with qs and the surface's options, never by hand.
 */
export function decodeNativeBody(contentType: string | undefined, raw: Buffer | string | undefined, surface: CompatSurface | undefined): Record<string, unknown> {
  const text = raw === undefined ? '' : raw.toString();
  if (text.trim() === '') return {};
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') {
    if (!surface?.form) throw rgError('FORM_BODY_UNSUPPORTED');
    return qs.parse(text, surface.form) as Record<string, unknown>;
  }
  if (type === 'application/json' || type.endsWith('+json')) {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw rgError('INVALID_JSON');
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw rgError('BAD_REQUEST', { reason: 'the body must be a JSON object' });
    return body as Record<string, unknown>;
  }
  throw rgError('UNSUPPORTED_MEDIA_TYPE');
}

/** A native query string with the surface's qs options (`expand[]=latest_charge`), else flat. */
export function decodeNativeQuery(url: string, surface: CompatSurface | undefined): Record<string, unknown> {
  const at = url.indexOf('?');
  if (at < 0) return {};
  return qs.parse(url.slice(at + 1), surface?.form ?? { depth: 0 }) as Record<string, unknown>;
}
