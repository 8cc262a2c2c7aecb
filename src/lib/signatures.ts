import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

// Building blocks of webhook signature schemes, shared by the gateways' verifiers and RouteGate's own signing.

export function hmacHex(key: string | Buffer, ...parts: Array<string | Buffer>): string {
  const h = createHmac('sha256', key);
  for (const p of parts) h.update(p);
  return h.digest('hex');
}

export function hmacBase64(key: string | Buffer, ...parts: Array<string | Buffer>): string {
  const h = createHmac('sha256', key);
  for (const p of parts) h.update(p);
  return h.digest('base64');
}

export function sha256Hex(...parts: Array<string | Buffer>): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex');
}

/**
 * Constant-time equality of two strings of any length: both sides are hashed first, so neither the position of
 * the first difference nor the expected value's length shows in the timing.
 */
export function safeEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Whether any candidate equals `expected`; every candidate is compared, so timing does not say which matched. */
export function anyEqual(candidates: readonly string[], expected: string): boolean {
  let found = false;
  for (const c of candidates) found = safeEqual(c, expected) || found;
  return found;
}

/** A header's value (the first, when repeated), case-insensitively as Node gives them. */
export function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  const first = Array.isArray(v) ? v[0] : v;
  return first === undefined || first === '' ? undefined : first;
}

/** `k1=v1,k2=v2` (or another separator) as pairs in order, keys lower-cased, split on each part's first `=`. */
export function parsePairs(value: string, separator: string | RegExp = ','): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const part of value.split(separator)) {
    const i = part.indexOf('=');
    if (i <= 0) continue;
    out.push([part.slice(0, i).trim().toLowerCase(), part.slice(i + 1).trim()]);
  }
  return out;
}
