import { randomFillSync } from 'node:crypto';

// randomBytes(10) per charge id cost about 10 µs: each call goes down to OpenSSL's generator on its own. The same
// generator fills a block of 4 KB at once here, and ids are cut from it; every byte is handed out once.
const BLOCK = 4096;
const pool = Buffer.alloc(BLOCK);
let offset = BLOCK;

/** `bytes` cryptographically random bytes as 2 * `bytes` lowercase hex digits. */
export function randomHex(bytes: number): string {
  if (bytes > BLOCK) return randomFillSync(Buffer.alloc(bytes)).toString('hex');
  if (offset + bytes > BLOCK) {
    randomFillSync(pool);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return hex;
}
