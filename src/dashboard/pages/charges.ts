import type { FastifyInstance } from 'fastify';
import { html } from '../html';
import { select, NO_ERRORS, formErrors, formMessages } from '../forms';
import { formatDate, formatMoney } from '../layout';
import { GATEWAY_CHOICES, gatewayName } from '../gateway-labels';
import { ownAccount, type DashboardDeps, type DashboardPage } from '../context';
import { decodeCursor, encodeCursor } from '../../http/cursor';
import { resolveGatewayId } from '../../gateways/registry-ids';
import type { ChargeRecord } from '../../store/charges';

const PAGE_SIZE = 25;
// The statuses GET /api/v1/charges filters by (schemas/charge-list-query.json).
const STATUSES = ['approved', 'pending', 'processing', 'declined', 'cancelled', 'refunded', 'failed', 'disputed', 'charged_back'];

type Query = { status?: string; gateway?: string; cursor?: string };

/** Owner: charges, newest first, filtered by status and gateway, a page at a time (the API's list). */
export const charges: DashboardPage = {
  nav: { label: 'Charges', path: '/dashboard/charges', audience: 'owner' },
  routes(app: FastifyInstance, deps: DashboardDeps) {
    app.get<{ Querystring: Query }>('/charges', { config: { audience: 'owner' } }, async (request, reply) => {
      const q = request.query;
      const status = STATUSES.includes(q.status ?? '') ? q.status : undefined;
      const gateway = resolveGatewayId(q.gateway);
      let rows: ChargeRecord[] = [];
      let errors = NO_ERRORS;
      try {
        rows = await deps.store.charges.list(ownAccount(request).id, { status, gateway, limit: PAGE_SIZE + 1, after: q.cursor ? decodeCursor(q.cursor) : undefined });
      } catch (err) {
        errors = formErrors(err);
      }
      const page = rows.slice(0, PAGE_SIZE);
      const next = rows.length > PAGE_SIZE ? new URLSearchParams({ ...(status ? { status } : {}), ...(gateway ? { gateway } : {}), cursor: encodeCursor(page[page.length - 1]) }) : undefined;
      return deps.render(request, reply, {
        title: 'Charges', body: html`<h1>Charges</h1>
${formMessages(errors)}
<form method="get" action="/dashboard/charges" class="card filters">
  ${select({ name: 'status', label: 'Status', options: [{ value: '', label: 'any' }, ...STATUSES.map((s) => ({ value: s, label: s }))], value: status ?? '', errors: NO_ERRORS })}
  ${select({ name: 'gateway', label: 'Gateway', options: [{ value: '', label: 'any' }, ...GATEWAY_CHOICES], value: gateway ?? '', errors: NO_ERRORS })}
  <button type="submit" class="secondary">Filter</button>
</form>
<div class="table-wrap card"><table class="charges">
<thead><tr><th>Created</th><th>Charge</th><th>Method</th><th>Amount</th><th>Status</th><th>Gateway</th></tr></thead>
<tbody>
${page.length === 0 ? html`<tr><td colspan="6" class="muted">No charges${status || gateway ? ' match these filters' : ' yet'}.</td></tr>` : page.map((c) => html`<tr data-charge="${c.id}">
  <td data-label="Created">${formatDate(c.createdAt)}</td>
  <td data-label="Charge"><a href="/dashboard/charges/${c.id}">${c.id}</a>${c.description ? html`<br><span class="muted small">${c.description}</span>` : ''}</td>
  <td data-label="Method">${c.paymentMethod}</td>
  <td data-label="Amount">${formatMoney(c.amount, c.currency)}</td>
  <td data-label="Status"><span class="badge s-${c.status}">${c.status}</span></td>
  <td data-label="Gateway">${gatewayName(c.gateway) || '–'}${c.fallbackUsed ? html` <span class="badge warn">fallback</span>` : ''}</td>
</tr>`)}
</tbody></table></div>
${next ? html`<p><a class="button secondary" href="/dashboard/charges?${next.toString()}">Older charges →</a></p>` : ''}`,
      });
    });
  },
};
