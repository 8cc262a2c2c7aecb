import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html } from '../html';
import { csrfField, formErrors, formMessages, NO_ERRORS, type FormErrors } from '../forms';
import { formatDate, formatMoney } from '../layout';
import { gatewayName } from '../gateway-labels';
import { ownAccount, type DashboardDeps, type DashboardPage } from '../context';
import type { EventSummary } from '../../webhooks/events';

const PAGE_SIZE = 25;

const deliveryBadge = (status: string | null) => (status
  ? html`<span class="badge d-${status}">${status}</span>`
  : html`<span class="muted" title="No webhookForwardUrl was set when it arrived">not forwarded</span>`);

const verifiedBadge = (verified: boolean | null) => (verified === true ? html`<span class="badge ok">verified</span>`
  : verified === false ? html`<span class="badge warn" title="Nothing verified it (no webhookSecret or token stored, or not signed): it changed no charge and was not forwarded">not verified</span>` : '');

/** A verified event that disagrees with its charge: the operator decides, RouteGate applied and forwarded nothing. */
const flagBadge = (flag: string | null) => (flag ? html` <span class="badge warn" data-flag title="${flag}">flagged: not applied</span>` : '');

/**
 * Owner: the events RouteGate received from the gateways (newest first, a page at a time), each with where its
 * delivery to webhookForwardUrl stands; an event's page shows every delivery attempt and a redeliver button. All
 * through EventService, as GET /api/v1/events, GET /events/:id and POST /events/:id/redeliver: another account's
 * event is not found.
 */
export const events: DashboardPage = {
  nav: { label: 'Events', path: '/dashboard/events', audience: 'owner' },
  async routes(app: FastifyInstance, deps: DashboardDeps) {
    app.get<{ Querystring: { cursor?: string } }>('/events', { config: { audience: 'owner' } }, async (request, reply) => {
      let rows: EventSummary[] = [];
      let next: string | null = null;
      let errors = NO_ERRORS;
      try {
        ({ events: rows, nextCursor: next } = await deps.events.list(ownAccount(request).id, PAGE_SIZE, request.query.cursor || undefined));
      } catch (err) {
        errors = formErrors(err);
      }
      const forwardUrl = (await deps.store.accounts.settings(ownAccount(request).id)).webhookForwardUrl;
      return deps.render(request, reply, {
        title: 'Events', status: errors === NO_ERRORS ? 200 : 400, body: html`<h1>Events</h1>
<p class="muted">What the gateways notified, normalized, and its delivery to ${forwardUrl ? html`<code class="wrap">${forwardUrl}</code>` : html`your backend (no forward URL is set: <a href="/dashboard/settings">Settings</a>)`}.</p>
${formMessages(errors)}
<div class="table-wrap card"><table class="events">
<thead><tr><th>Received</th><th>Event</th><th>Gateway</th><th>Charge</th><th>Signature</th><th>Delivery</th></tr></thead>
<tbody>
${rows.length === 0 ? html`<tr><td colspan="6" class="muted">No events yet. They appear when a gateway notifies RouteGate at the webhook URLs on the <a href="/dashboard/overview">overview</a>.</td></tr>` : rows.map((e) => html`<tr data-event="${e.id}" data-delivery="${e.delivery ?? 'none'}">
  <td data-label="Received">${formatDate(e.createdAt)}</td>
  <td data-label="Event"><a href="/dashboard/events/${e.id}" data-type="${e.type}">${e.type}</a><br><code class="small muted">${e.id}</code></td>
  <td data-label="Gateway">${gatewayName(e.gateway)}</td>
  <td data-label="Charge">${e.chargeId ? html`<a href="/dashboard/charges/${e.chargeId}"><code class="small">${e.chargeId}</code></a>` : html`<span class="muted">–</span>`}</td>
  <td data-label="Signature">${verifiedBadge(e.verified)}${flagBadge(e.flag)}</td>
  <td data-label="Delivery">${deliveryBadge(e.delivery)}</td>
</tr>`)}
</tbody></table></div>
${next ? html`<p><a class="button secondary" href="/dashboard/events?${new URLSearchParams({ cursor: next }).toString()}">Older events →</a></p>` : ''}`,
      });
    });

    const detail = async (request: FastifyRequest, reply: FastifyReply, id: string, failed?: { errors: FormErrors; status: number }) => {
      const accountId = ownAccount(request).id;
      const e = await deps.events.get(accountId, id);
      const forwardUrl = (await deps.store.accounts.settings(accountId)).webhookForwardUrl;
      const d = e.data;
      return deps.render(request, reply, {
        title: `Event ${e.id}`, status: failed?.status, body: html`<p><a href="/dashboard/events">← Events</a></p>
<h1>Event <code>${e.id}</code></h1>
<section class="card">
<dl class="facts">
  <dt>Type</dt><dd><code id="event-type">${e.type}</code></dd>
  <dt>Gateway</dt><dd>${gatewayName(e.gateway)} · <code>${e.gatewayEvent.type}</code> <span class="muted small">${e.gatewayEvent.id}</span></dd>
  <dt>Signature</dt><dd>${verifiedBadge(e.verified) || html`<span class="muted">not recorded</span>`}${e.verifiedBy === 'gateway_read' ? html` <span class="muted small">by RouteGate's read at the gateway</span>` : ''}</dd>
  ${e.flag ? html`<dt>Flagged</dt><dd id="event-flag">${e.flag}: neither applied to the charge nor forwarded</dd>` : ''}
  <dt>Charge</dt><dd>${d.chargeId ? html`<a href="/dashboard/charges/${d.chargeId}">${d.chargeId}</a>` : '–'}${d.externalId ? html` · <code>${d.externalId}</code>` : ''}</dd>
  ${d.status ? html`<dt>Status</dt><dd><span class="badge s-${d.status}">${d.status}</span></dd>` : ''}
  ${d.amount !== undefined ? html`<dt>Amount</dt><dd>${formatMoney(d.amount, d.currency ?? 'BRL')}${d.refundedAmount ? html` · refunded ${formatMoney(d.refundedAmount, d.currency ?? 'BRL')}` : ''}</dd>` : ''}
  ${d.subscriptionId ? html`<dt>Subscription</dt><dd><code>${d.subscriptionId}</code> ${d.subscriptionStatus ?? ''}</dd>` : ''}
  <dt>Received</dt><dd>${formatDate(e.createdAt)}</dd>
</dl>
</section>
<section class="card">
<h2>Deliveries</h2>
<p class="muted">To ${forwardUrl ? html`<code class="wrap">${forwardUrl}</code>` : 'no forward URL (set one in Settings)'}, signed with X-RG-Signature and the Standard Webhooks headers; a failed delivery is retried with backoff for three days.</p>
${formMessages(failed?.errors ?? NO_ERRORS)}
<form method="post" action="/dashboard/events/${e.id}/redeliver" class="inline" id="redeliver">
  ${csrfField(deps.csrf(reply))}<button type="submit">Redeliver now</button>
</form>
${e.deliveries.length === 0 ? html`<p class="muted">Never forwarded.</p>` : html`<div class="table-wrap"><table class="deliveries">
<thead><tr><th>Delivery</th><th>Attempt</th><th>Outcome</th><th>HTTP</th><th>Duration</th><th>Error</th><th>At</th></tr></thead>
<tbody>${e.deliveries.flatMap((dl) => (dl.attempts.length ? dl.attempts : [null]).map((a) => html`<tr data-delivery="${dl.id}" data-status="${dl.status}"${a ? html` data-outcome="${a.outcome}"` : ''}>
  <td data-label="Delivery"><code class="small">${dl.id}</code><br>${deliveryBadge(dl.status)}${dl.nextAttemptAt ? html`<br><span class="muted small">next try ${formatDate(dl.nextAttemptAt)}</span>` : ''}</td>
  ${a ? html`<td data-label="Attempt">${a.attempt}</td>
  <td data-label="Outcome"><span class="badge d-${a.outcome}">${a.outcome}</span></td>
  <td data-label="HTTP">${a.statusCode ?? '–'}</td>
  <td data-label="Duration">${a.durationMs} ms</td>
  <td data-label="Error">${a.error ?? ''}</td>
  <td data-label="At">${formatDate(a.at)}</td>` : html`<td colspan="6" class="muted">no attempt yet</td>`}
</tr>`))}</tbody></table></div>`}
</section>
<details class="card"><summary>The event as forwarded (JSON)</summary><pre class="wrap">${JSON.stringify({ ...e, flag: undefined, deliveries: undefined }, null, 2)}</pre></details>`,
      });
    };

    app.get<{ Params: { id: string } }>('/events/:id', { config: { audience: 'owner' } }, async (request, reply) => detail(request, reply, request.params.id));

    app.post<{ Params: { id: string } }>('/events/:id/redeliver', { config: { audience: 'owner' } }, async (request, reply) => {
      const accountId = ownAccount(request).id;
      const id = request.params.id;
      await deps.events.get(accountId, id); // another account's event: 404 before anything else
      let result;
      try {
        result = await deps.events.redeliver(accountId, id);
      } catch (err) {
        return detail(request, reply, id, { errors: formErrors(err), status: (err as { statusCode?: number }).statusCode ?? 400 });
      }
      const last = result.delivery.attempts.at(-1);
      const message = result.delivery.status === 'delivered' ? `Redelivered: your backend answered ${last?.statusCode ?? ''}.`
        : `Redelivery failed (${last?.error ?? 'no answer'}); it is retried with backoff.`;
      return deps.done(request, reply, `/dashboard/events/${id}`, message);
    });
  },
};
