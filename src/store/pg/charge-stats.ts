import type { DailyGatewayCount } from '../charge-stats';
import type { Queryable } from './pool';
import { BRAZIL_UTC_OFFSET_HOURS } from '../../lib/iso-time';
import { withValues } from './queryable';

// As in the SQLite store: GROUP BY gateway is the column (input names win in GROUP BY), ORDER BY the output's
// coalesced one; COUNT FILTER stands for SQLite's SUM of a boolean. A charge counts as approved when a gateway
// took the money, even if it was refunded or charged back later.
const DAILY = {
  name: 'charge-stats.daily',
  text: `SELECT to_char((created_at::timestamptz AT TIME ZONE 'UTC') + interval '${BRAZIL_UTC_OFFSET_HOURS} hours', 'YYYY-MM-DD') AS day,
      COALESCE(gateway, '') AS gateway, COUNT(*) AS total,
      COUNT(*) FILTER (WHERE status IN ('approved', 'refunded', 'disputed', 'charged_back')) AS approved, COUNT(*) FILTER (WHERE status = 'declined') AS declined
    FROM charges WHERE account_id = $1 AND created_at >= $2 GROUP BY day, gateway ORDER BY day, gateway`,
};

/** Aggregates over an account's charges for the dashboard's chart (read-only): ChargeStatsRepository on PostgreSQL. */
export class PgChargeStatsRepository {
  constructor(private readonly q: Queryable) {}

  /** Charges per calendar day in Brazil (src/lib/iso-time.ts) and gateway, created at or after `sinceIso`. */
  async dailyByGateway(accountId: string, sinceIso: string): Promise<DailyGatewayCount[]> {
    return (await this.q.query<DailyGatewayCount>(withValues(DAILY, [accountId, sinceIso]))).rows;
  }
}
