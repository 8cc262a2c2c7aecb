import type { SessionKind, SessionRow } from '../sessions';
import type { Queryable } from './queryable';

type Int = number | string;

const SQL = {
  // Rows a day past their expiry serve no check any more: dropped as a new session is made, in the same statement.
  create: `WITH purged AS (DELETE FROM dashboard_sessions WHERE expires_at < $4::bigint - 86400000)
    INSERT INTO dashboard_sessions (id_hash, kind, subject_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
  byHash: 'SELECT kind, subject_id, expires_at, revoked_at FROM dashboard_sessions WHERE id_hash = $1',
  revokeOne: 'UPDATE dashboard_sessions SET revoked_at = $1 WHERE id_hash = $2 AND revoked_at IS NULL',
  revokeSubject: 'UPDATE dashboard_sessions SET revoked_at = $1 WHERE kind = $2 AND subject_id = $3 AND revoked_at IS NULL',
};

/** Dashboard sessions by the SHA-256 of their id (PostgreSQL; the contract of SessionsRepository, asynchronous). */
export class PgSessionsRepository {
  constructor(private readonly q: Queryable) {}

  async create(idHash: string, kind: SessionKind, subjectId: string, now: number, expiresAt: number): Promise<void> {
    await this.q.query({ name: 'sessions.create', text: SQL.create, values: [idHash, kind, subjectId, now, expiresAt] });
  }

  async get(idHash: string): Promise<SessionRow | undefined> {
    const { rows } = await this.q.query<{ kind: SessionKind; subject_id: string; expires_at: Int; revoked_at: Int | null }>({ name: 'sessions.byHash', text: SQL.byHash, values: [idHash] });
    const r = rows[0];
    return r && { kind: r.kind, subjectId: r.subject_id, expiresAt: Number(r.expires_at), revokedAt: r.revoked_at === null ? null : Number(r.revoked_at) };
  }

  async revoke(idHash: string, now: number): Promise<void> {
    await this.q.query({ name: 'sessions.revokeOne', text: SQL.revokeOne, values: [now, idHash] });
  }

  async revokeAll(kind: SessionKind, subjectId: string, now: number): Promise<void> {
    await this.q.query({ name: 'sessions.revokeSubject', text: SQL.revokeSubject, values: [now, kind, subjectId] });
  }
}
