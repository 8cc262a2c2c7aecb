import type { Queryable } from './pool';
import { withValues } from './queryable';

const GET = { name: 'meta.get', text: 'SELECT value FROM meta WHERE key = $1' };
const SET = { name: 'meta.set', text: 'INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value' };

/** Process-wide key/value settings: MetaRepository's contract on PostgreSQL. */
export class PgMetaRepository {
  constructor(private readonly q: Queryable) {}

  async get(key: string): Promise<string | undefined> {
    return (await this.q.query<{ value: string }>(withValues(GET, [key]))).rows[0]?.value;
  }

  async set(key: string, value: string): Promise<void> {
    await this.q.query(withValues(SET, [key, value]));
  }
}
