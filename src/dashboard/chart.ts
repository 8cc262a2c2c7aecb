import { html, type Html } from './html';
import type { DailyGatewayCount } from '../store/charge-stats';
import { brazilDayNumber, dayNumberDate } from '../lib/iso-time';

export interface GatewayTotals { gateway: string; total: number; approved: number; declined: number; approvalRate: number | null }

const DAYS = 30;
const W = 600;
const H = 160;

/**
 * The last 30 calendar days in Brazil, today's included, oldest first, as YYYY-MM-DD: the days a Brazilian merchant
 * counts in (src/lib/iso-time.ts). In UTC, a charge made at 22:00 in São Paulo would count on tomorrow's bar.
 */
export function lastDays(now: number, days = DAYS): string[] {
  const today = brazilDayNumber(now);
  return Array.from({ length: days }, (_, i) => dayNumberDate(today - (days - 1 - i)));
}

/** Per gateway over the period: charges, approvals, declines and approval rate (approved of approved + declined). */
export function totals(rows: DailyGatewayCount[]): GatewayTotals[] {
  const by = new Map<string, GatewayTotals>();
  for (const r of rows) {
    const t = by.get(r.gateway) ?? { gateway: r.gateway, total: 0, approved: 0, declined: 0, approvalRate: null };
    t.total += r.total;
    t.approved += r.approved;
    t.declined += r.declined;
    by.set(r.gateway, t);
  }
  for (const t of by.values()) t.approvalRate = t.approved + t.declined > 0 ? t.approved / (t.approved + t.declined) : null;
  return [...by.values()].sort((a, b) => b.total - a.total);
}

/**
 * Charges per day as stacked bars, one colour per gateway (classes g0..g5 in the stylesheet: no inline style
 * under the CSP), with the numbers in a table beside it for anyone who cannot read colours.
 */
export function chargesChart(rows: DailyGatewayCount[], gateways: string[], labelOf: (id: string) => string, days: string[]): Html {
  const perDay = new Map<string, Map<string, number>>();
  for (const r of rows) {
    const m = perDay.get(r.day) ?? new Map<string, number>();
    m.set(r.gateway, (m.get(r.gateway) ?? 0) + r.total);
    perDay.set(r.day, m);
  }
  const max = Math.max(1, ...days.map((d) => [...(perDay.get(d)?.values() ?? [])].reduce((a, b) => a + b, 0)));
  const slot = W / days.length;
  const colour = (g: string) => `g${Math.max(0, gateways.indexOf(g)) % 6}`;
  const bars = days.flatMap((day, i) => {
    let y = H;
    return [...(perDay.get(day) ?? new Map<string, number>()).entries()].map(([g, n]) => {
      const h = (n / max) * (H - 10);
      y -= h;
      return html`<rect class="${colour(g)}" x="${(i * slot + 2).toFixed(1)}" y="${y.toFixed(1)}" width="${(slot - 4).toFixed(1)}" height="${h.toFixed(1)}"><title>${day}: ${n} via ${labelOf(g)}</title></rect>`;
    });
  });
  const t = totals(rows);
  return html`<figure class="chart">
<svg viewBox="0 0 ${W} ${H + 20}" role="img" aria-labelledby="chart-title" preserveAspectRatio="none">
  <title id="chart-title">Charges per day and gateway, last ${days.length} days (most in one day: ${max})</title>
  <line class="axis" x1="0" y1="${H}" x2="${W}" y2="${H}"></line>
  ${bars}
  <text class="tick" x="0" y="${H + 15}">${days[0]}</text>
  <text class="tick" x="${W}" y="${H + 15}" text-anchor="end">${days[days.length - 1]}</text>
</svg>
<figcaption>
<table class="legend"><thead><tr><th>Gateway</th><th>Charges</th><th>Approved</th><th>Declined</th><th>Approval rate</th></tr></thead><tbody>
${t.length === 0 ? html`<tr><td colspan="5" class="muted">No charges in the last ${days.length} days.</td></tr>` : t.map((r) => html`<tr data-gateway="${r.gateway}">
<td><span class="swatch ${colour(r.gateway)}"></span>${r.gateway ? labelOf(r.gateway) : 'none (refused before any gateway)'}</td><td>${r.total}</td><td>${r.approved}</td><td>${r.declined}</td>
<td>${r.approvalRate === null ? '–' : `${Math.round(r.approvalRate * 100)}%`}</td></tr>`)}
</tbody></table>
</figcaption>
</figure>`;
}
