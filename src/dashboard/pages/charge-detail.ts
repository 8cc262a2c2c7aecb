import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html } from '../html';
import { csrfField, field, formErrors, formMessages, NO_ERRORS, type FormErrors } from '../forms';
import { formatDate, formatMoney } from '../layout';
import { parseReais } from '../locale';
import { gatewayName } from '../gateway-labels';
import { ownAccount, type DashboardDeps, type DashboardPage } from '../context';
import type { ChargeRecord } from '../../store/charges';
import type { ChargeResult } from '../../charges/orchestrator';
import { lastInstallment, type InstallmentPlan } from '../../installments/price-table';

const ACTIONS = ['capture', 'cancel', 'refund'] as const;
type Action = (typeof ACTIONS)[number];

/** Which buttons make sense for the charge as stored; the service still decides (and says why not). */
function actionsFor(c: ChargeRecord): Action[] {
  const out: Action[] = [];
  if (c.status === 'approved' && c.captured === false) out.push('capture', 'cancel');
  else if (c.status === 'pending') out.push('cancel');
  if (c.status === 'approved' && c.captured !== false && c.refundedAmount < c.amount) out.push('refund');
  return out;
}

/**
 * Owner: one charge with every attempt (fallbacks, skipped gateways and why) and its capture/cancel/refund buttons,
 * which call ChargeService as the API's follow-up routes do. The charge is read with the signed-in account's id:
 * another account's charge is not found.
 */
export const chargeDetail: DashboardPage = {
  async routes(app: FastifyInstance, deps: DashboardDeps) {
    const page = async (request: FastifyRequest, reply: FastifyReply, id: string, failed?: { action: Action; errors: FormErrors; status: number }) => {
      const c = await deps.charges.get(ownAccount(request).id, id);
      const attempts = await deps.store.charges.attempts(c.id);
      const csrf = deps.csrf(reply);
      const actionForm = (action: Action) => {
        const errors = failed?.action === action ? failed.errors : NO_ERRORS;
        return html`<form method="post" action="/dashboard/charges/${c.id}/${action}" class="action card" data-action="${action}" novalidate>
  ${csrfField(csrf)}
  <h3>${action[0].toUpperCase() + action.slice(1)}</h3>
  ${formMessages(errors)}
  ${action === 'cancel' ? '' : field({ name: 'amount', label: `Amount in R$ (empty: ${action === 'refund' ? 'everything left' : 'the whole authorization'})`, placeholder: '50,00', inputmode: 'decimal', errors })}
  <button type="submit" class="${action === 'capture' ? 'primary' : 'danger'}">${action === 'refund' ? 'Refund' : action === 'capture' ? 'Capture' : 'Cancel charge'}</button>
</form>`;
      };
      const shown = [...new Set([...actionsFor(c), ...(failed ? [failed.action] : [])])];
      return deps.render(request, reply, {
        title: `Charge ${c.id}`, status: failed?.status, body: html`<p><a href="/dashboard/charges">← Charges</a></p>
<h1>Charge <code>${c.id}</code></h1>
<section class="card">
<dl class="facts">
  <dt>Status</dt><dd><span class="badge s-${c.status}" id="charge-status">${c.status}</span>${c.captured === false ? ' (authorized, not captured)' : ''}</dd>
  <dt>Amount</dt><dd>${formatMoney(c.amount, c.currency)}${c.refundedAmount ? html` · refunded ${formatMoney(c.refundedAmount, c.currency)}` : ''}</dd>
  <dt>Method</dt><dd>${c.paymentMethod}${c.card ? html` · ${c.card.brand ?? ''} •••• ${c.card.last4 ?? ''}` : ''}</dd>
  ${c.installments ? html`<dt>Installments</dt><dd id="charge-installments">${planText(c.installments, c.currency)}</dd>` : ''}
  <dt>Gateway</dt><dd>${gatewayName(c.gateway) || '–'}${c.fallbackUsed ? html` <span class="badge warn">fallback from ${gatewayName(c.primaryGateway)}</span>` : ''}</dd>
  <dt>Gateway id</dt><dd><code>${c.externalId ?? '–'}</code></dd>
  ${c.dispute ? html`<dt>Dispute</dt><dd id="charge-dispute"><span class="badge dispute-${c.dispute.status}">${c.dispute.status}</span> · ${formatMoney(c.dispute.amount, c.currency)}${c.dispute.reason ? html` · ${c.dispute.reason}` : ''} · opened ${formatDate(c.dispute.openedAt)}</dd>` : ''}
  ${c.declineCode ? html`<dt>Decline</dt><dd>${c.declineCode}</dd>` : ''}
  ${c.errorCode ? html`<dt>Error</dt><dd>${c.errorCode}: ${c.errorMessage}</dd>` : ''}
  ${c.description ? html`<dt>Description</dt><dd>${c.description}</dd>` : ''}
  <dt>Created</dt><dd>${formatDate(c.createdAt)}</dd>
  <dt>Updated</dt><dd>${formatDate(c.updatedAt)}</dd>
</dl>
</section>
${shown.length ? html`<section class="cards actions-row">${shown.map(actionForm)}</section>` : ''}
<section class="card">
<h2>Attempts</h2>
<div class="table-wrap"><table class="attempts">
<thead><tr><th>#</th><th>Operation</th><th>Gateway</th><th>Outcome</th><th>Reason</th><th>HTTP</th><th>Time</th></tr></thead>
<tbody>${attempts.map((a) => html`<tr data-outcome="${a.outcome}" data-gateway="${a.gateway}">
  <td data-label="#">${a.seq}</td><td data-label="Operation">${a.operation}</td><td data-label="Gateway">${gatewayName(a.gateway)}</td>
  <td data-label="Outcome"><span class="badge o-${a.outcome}">${a.outcome}</span></td>
  <td data-label="Reason">${a.errorCode ? html`<code>${a.errorCode}</code> ` : ''}${a.message ?? ''}</td>
  <td data-label="HTTP">${a.gatewayStatus ?? ''}</td><td data-label="Time">${a.durationMs} ms</td>
</tr>`)}</tbody></table></div>
</section>`,
      });
    };

    app.get<{ Params: { id: string } }>('/charges/:id', { config: { audience: 'owner' } }, async (request, reply) => page(request, reply, request.params.id));

    for (const action of ACTIONS) {
      app.post<{ Params: { id: string }; Body: { amount?: string } }>(`/charges/:id/${action}`, { config: { audience: 'owner' } }, async (request, reply) => {
        const accountId = ownAccount(request).id;
        const id = request.params.id;
        const c = await deps.charges.get(accountId, id); // not this account's: 404 before anything else
        let result: ChargeResult;
        try {
          const amount = parseReais(request.body?.amount);
          result = action === 'cancel' ? await deps.charges.cancel(accountId, id)
            : action === 'capture' ? await deps.charges.capture(accountId, id, amount) : await deps.charges.refund(accountId, id, amount);
          if (result.error) throw result.error;
        } catch (err) {
          const errors = inReais(formErrors(err), c.currency);
          return page(request, reply, id, { action, errors, status: (err as { statusCode?: number }).statusCode ?? 400 });
        }
        const done = { capture: 'Captured.', cancel: 'Cancelled.', refund: 'Refunded.' }[action];
        return deps.done(request, reply, `/dashboard/charges/${id}`, `${done} Status: ${result.charge.status}.`);
      });
    }
  },
};

/** A plan as a Brazilian checkout says it: `10x de R$ 111,27 (total R$ 1.112,70, com juros)`, the last one named when it differs. */
export function planText(plan: InstallmentPlan, currency: string): string {
  const last = lastInstallment(plan);
  const lastText = last === plan.installmentAmount ? '' : `, última de ${formatMoney(last, currency)}`;
  return `${plan.count}x de ${formatMoney(plan.installmentAmount, currency)} (total ${formatMoney(plan.totalAmount, currency)}${lastText}, ${plan.interestFree ? 'sem juros' : 'com juros'})`;
}

/** The service's limits are in cents (`amount must be <= 7500`); the form speaks reais (`<= R$ 75,00`). */
function inReais(errors: FormErrors, currency: string): FormErrors {
  const amount = errors.fields.amount;
  if (!amount) return errors;
  return { ...errors, fields: { ...errors.fields, amount: amount.replace(/(<=?|>=?) (\d+)\b/g, (_, op: string, cents: string) => `${op} ${formatMoney(Number(cents), currency)}`) } };
}
