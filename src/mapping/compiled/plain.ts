// What callers of a mapping get: plain JSON. JSONata returns sequences (arrays with extra properties) and may leave
// undefined fields or functions in its values.

/* eslint-disable @typescript-eslint/no-explicit-any */

/** What JSON.parse(JSON.stringify(v)) would give, without printing and parsing every result. */
export function toPlain(value: unknown): unknown {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'number' && !Number.isFinite(value) ? null : typeof value === 'function' ? undefined : value;
  }
  if (Array.isArray(value)) {
    return value.map((item) => toPlainItem(item));
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return JSON.parse(JSON.stringify(value));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const plain = toPlain((value as Record<string, unknown>)[key]);
    if (plain === undefined) continue;
    // An own `__proto__` key (JSON.parse makes one from a gateway's body) stays an own key, as JSON.parse would
    // make it: assigned, it would set the copy's prototype and drop the key from what is sent on.
    if (key === '__proto__') Object.defineProperty(out, key, { value: plain, enumerable: true, writable: true, configurable: true });
    else out[key] = plain;
  }
  return out;
}

/** toPlain of an array's item: JSON writes null where the item has no JSON form. */
export function toPlainItem(value: unknown): unknown {
  const plain = toPlain(value);
  return plain === undefined ? null : plain;
}
