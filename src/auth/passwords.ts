import { hash, verify, Algorithm } from '@node-rs/argon2';
import { rgError } from '../errors';

export const MIN_PASSWORD_LENGTH = 12;

// OWASP's argon2id baseline (19 MiB, 2 passes, 1 lane): about 20 ms here, slow enough against offline guessing.
const OPTIONS = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** Refuses a password a person could not be asked to keep secret for long; length is the rule that matters. */
export function assertPasswordStrength(password: string): void {
  if ([...password].length < MIN_PASSWORD_LENGTH) throw rgError('PASSWORD_TOO_SHORT', { min: MIN_PASSWORD_LENGTH });
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false; // a malformed stored hash proves nothing
  }
}

// Verified when the e-mail is unknown, so an unknown e-mail costs as long as a wrong password (no account probing by timing).
let dummy: Promise<string> | undefined;
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword('routegate-no-such-user-password');
  return dummy;
}
