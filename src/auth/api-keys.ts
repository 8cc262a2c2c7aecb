import { randomBase62, sha256Hex } from '../lib/crypto';

/** `tk_` + 40 base62 characters (about 238 bits). */
export const API_KEY_PATTERN = /^tk_[A-Za-z0-9]{32,128}$/;

export function generateApiKey(): string {
  return `tk_${randomBase62(40)}`;
}

export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

/** What an operator may see of a key: never more than its last four characters. */
export function keyHint(key: string): string {
  return `tk_…${key.slice(-4)}`;
}
