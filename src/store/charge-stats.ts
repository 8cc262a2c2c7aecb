import type { DB } from './db';
import { BRAZIL_UTC_OFFSET_HOURS } from '../lib/iso-time';

export interface DailyGatewayCount { day: string; gateway: string; total: number; approved: number; declined: number }

// A charge counts as approved when a gateway took the money, even if it was refunded or charged back later.
const APPROVED = "('approved', 'refunded', 'disputed', 'charged_back')";

/** Aggregates over an account's charges for the dashboard's chart (read-only). */
export class ChargeStatsRepository {
  private readonly daily;

  constructor(db: DB) {
    this.daily = db.prepare(`SELECT date(created_at, '${BRAZIL_UTC_OFFSET_HOURS} hours') AS day, COALESCE(gateway, '') AS gateway, COUNT(*) AS total,
        SUM(status IN ${APPROVED}) AS approved, SUM(status = 'declined') AS declined
      FROM charges WHERE account_id = ? AND created_at >= ? GROUP BY day, gateway ORDER BY day, gateway`);
  }

  /** Charges per calendar day in Brazil (src/lib/iso-time.ts) and gateway, created at or after `sinceIso`. */
  async dailyByGateway(accountId: string, sinceIso: string): Promise<DailyGatewayCount[]> {
    return this.daily.all(accountId, sinceIso) as DailyGatewayCount[];
  }
}
