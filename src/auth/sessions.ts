import { randomBytes } from 'node:crypto';
import type { Store } from '../store';
import type { SessionKind } from '../store/sessions';
import { sha256Hex } from '../lib/crypto';
import { clock } from '../lib/clock';

export type { SessionKind };

export interface SessionSubject { kind: SessionKind; subjectId: string }

/**
 * Dashboard sessions. The cookie (encrypted and signed by @fastify/secure-session) carries only a random id; the
 * row it names decides whether the session still counts, so logout and a password change end it on the server,
 * whatever copies of the cookie exist.
 */
export class SessionService {
  constructor(private readonly store: Store, private readonly ttlMs: number) {}

  async start(subject: SessionSubject): Promise<string> {
    const id = randomBytes(32).toString('base64url');
    const now = clock.now();
    await this.store.sessions.create(sha256Hex(id), subject.kind, subject.subjectId, now, now + this.ttlMs);
    return id;
  }

  /** The signed-in subject, or undefined when the session is unknown, ended or expired. */
  async check(id: string | undefined): Promise<SessionSubject | undefined> {
    if (!id) return undefined;
    const row = await this.store.sessions.get(sha256Hex(id));
    if (!row || row.revokedAt !== null || row.expiresAt <= clock.now()) return undefined;
    return { kind: row.kind, subjectId: row.subjectId };
  }

  async end(id: string): Promise<void> {
    await this.store.sessions.revoke(sha256Hex(id), clock.now());
  }

  async endAll(subject: SessionSubject): Promise<void> {
    await this.store.sessions.revokeAll(subject.kind, subject.subjectId, clock.now());
  }
}
