import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Random base62 id with a gateway-style prefix, e.g. randomId('pi_', 24). */
export function randomId(prefix: string, length = 24, alphabet = ALPHABET): string {
  const bytes = randomBytes(length);
  let out = prefix;
  for (let i = 0; i < length; i++) out += alphabet[bytes[i] % alphabet.length];
  return out;
}

export function randomDigits(length: number): string {
  return randomId('', length, '0123456789');
}

export function randomUuid(): string {
  return crypto.randomUUID();
}
