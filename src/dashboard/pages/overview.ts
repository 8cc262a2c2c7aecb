import type { FastifyInstance } from 'fastify';
import { html } from '../html';
import { chargesChart, lastDays } from '../chart';
import { formatDate } from '../layout';
import { GATEWAY_CHOICES, gatewayName } from '../gateway-labels';
import { ownAccount, type DashboardDeps, type DashboardPage } from '../context';
import { webhookUrls } from '../../accounts/webhook-urls';
import { GATEWAY_IDS } from '../../gateways/registry-ids';
import { clock } from '../../lib/clock';
import { brazilDayStartIso } from '../../lib/iso-time';

/** Owner: the account at a glance, the webhook URL to paste into each gateway's panel, the 30-day chart. */
export const overview: DashboardPage = {
  nav: { label: 'Overview', path: '/dashboard/overview', audience: 'owner' },
  routes(app: FastifyInstance, deps: DashboardDeps) {
    app.get('/overview', { config: { audience: 'owner' } }, async (request, reply) => {
      const account = ownAccount(request);
      const settings = await deps.store.accounts.settings(account.id);
      const urls = webhookUrls(deps.publicUrl(), account.webhookToken);
      const configured = new Set((await deps.vault.list(account.id)).map((c) => c.gateway));
      const key = await deps.store.apiKeys.live(account.id);
      // From the start of the chart's first day in Brazil: the totals beside the chart count the days it shows.
      const days = lastDays(clock.now());
      const stats = await deps.store.chargeStats.dailyByGateway(account.id, brazilDayStartIso(days[0]));
      return deps.render(request, reply, {
        title: 'Overview', body: html`<h1>${account.name}</h1>
<section class="cards">
  <div class="card stat"><h2>API key</h2><p>${key ? html`<code>${key.hint}</code> <span class="muted">since ${formatDate(key.createdAt)}</span>` : 'none'}</p><p><a href="/dashboard/api-key">Settings → API</a></p></div>
  <div class="card stat"><h2>Routing</h2><p>Primary: <strong>${gatewayName(settings.primaryGateway) || 'not set'}</strong></p><p>Fallbacks: ${settings.gatewayFallbacks.map(gatewayName).join(' → ') || 'none'}</p><p><a href="/dashboard/settings">Change settings</a></p></div>
  <div class="card stat"><h2>Credentials</h2><p>${configured.size} of ${GATEWAY_IDS.length} gateways configured</p><p><a href="/dashboard/credentials">Manage credentials</a></p></div>
</section>
<section class="card">
<h2>Charges, last 30 days</h2>
${chargesChart(stats, [...GATEWAY_IDS], gatewayName, days)}
</section>
<section class="card">
<h2>Webhook URLs</h2>
<p class="muted">Paste each URL into that gateway's panel, so its events reach RouteGate and are forwarded to your backend.</p>
<div class="table-wrap"><table class="webhooks">
<thead><tr><th>Gateway</th><th>Webhook URL</th><th></th></tr></thead>
<tbody>${GATEWAY_CHOICES.map((g) => html`<tr>
  <td data-label="Gateway">${g.label}${configured.has(g.value) ? '' : html` <span class="badge off">no credentials</span>`}</td>
  <td data-label="URL"><code id="wh-${g.value}" class="wrap">${urls[g.value]}</code></td>
  <td><button type="button" class="secondary copy" data-copy="wh-${g.value}">Copy</button></td>
</tr>`)}</tbody></table></div>
</section>`,
      });
    });
  },
};
