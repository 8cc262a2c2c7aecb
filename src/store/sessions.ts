import type { DB } from './db';

export type SessionKind = 'operator' | 'owner';

export interface SessionRow { kind: SessionKind; subjectId: string; expiresAt: number; revokedAt: number | null }

/** Dashboard sessions by the SHA-256 of their id (the id itself lives only in the encrypted cookie). */
export class SessionsRepository {
  private readonly insert;
  private readonly byHash;
  private readonly revokeOne;
  private readonly revokeSubject;
  private readonly purge;

  constructor(db: DB) {
    this.insert = db.prepare('INSERT INTO dashboard_sessions (id_hash, kind, subject_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)');
    this.byHash = db.prepare('SELECT kind, subject_id, expires_at, revoked_at FROM dashboard_sessions WHERE id_hash = ?');
    this.revokeOne = db.prepare('UPDATE dashboard_sessions SET revoked_at = ? WHERE id_hash = ? AND revoked_at IS NULL');
    this.revokeSubject = db.prepare('UPDATE dashboard_sessions SET revoked_at = ? WHERE kind = ? AND subject_id = ? AND revoked_at IS NULL');
    this.purge = db.prepare('DELETE FROM dashboard_sessions WHERE expires_at < ?');
  }

  async create(idHash: string, kind: SessionKind, subjectId: string, now: number, expiresAt: number): Promise<void> {
    // Rows a day past their expiry serve no check any more.
    this.purge.run(now - 86_400_000);
    this.insert.run(idHash, kind, subjectId, now, expiresAt);
  }

  async get(idHash: string): Promise<SessionRow | undefined> {
    const r = this.byHash.get(idHash) as { kind: SessionKind; subject_id: string; expires_at: number; revoked_at: number | null } | undefined;
    return r && { kind: r.kind, subjectId: r.subject_id, expiresAt: r.expires_at, revokedAt: r.revoked_at };
  }

  async revoke(idHash: string, now: number): Promise<void> {
    this.revokeOne.run(now, idHash);
  }

  async revokeAll(kind: SessionKind, subjectId: string, now: number): Promise<void> {
    this.revokeSubject.run(now, kind, subjectId);
  }
}
