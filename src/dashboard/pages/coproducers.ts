import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html } from '../html';
import { buttonForm, csrfField, field, formErrors, formMessages, NO_ERRORS, type FormErrors } from '../forms';
import { formatDate } from '../layout';
import { ownAccount, type DashboardDeps, type DashboardPage } from '../context';
import { GATEWAYS } from '../../gateways/registry';
import { resolveGatewayId } from '../../gateways/registry-ids';
import { fieldSummary, rgError } from '../../errors';
import type { CoproducerInput, CoproducerPatch } from '../../splits/coproducers';
import type { CoproducerRecord } from '../../store/coproducers';

type Body = Record<string, string | undefined>;

const PAGE_SIZE = 50;
const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');
// One recipient input per registered gateway, named as the API's field (recipients.<id>), so a service error on
// `recipients.<id>` lands next to its input.
const recipientField = (gateway: string) => `recipients.${gateway}`;
const recipientHint = (g: (typeof GATEWAYS)[number]) => g.splitRecipient?.description ?? `the coproducer's id at ${g.name}`;

/** The API's schema first (the same checks POST and PATCH /coproducers make), as field errors. */
function assertSchema(deps: DashboardDeps, schema: 'coproducer-request' | 'coproducer-patch', data: unknown): void {
  deps.validator.assert(schema, data, '', (errors) => rgError('INVALID_REQUEST', { fields: fieldSummary(errors) }, { details: { errors } }));
}

/**
 * Owner: coproducers (the people charges are split with): list, create with a recipient id per gateway (the
 * gateways from the registry), change the name or e-mail, set or remove one gateway's recipient, delete. Every
 * action is CoproducerService, as the API's /coproducers routes; the account comes from the session.
 */
export const coproducers: DashboardPage = {
  nav: { label: 'Coproducers', path: '/dashboard/coproducers', audience: 'owner' },
  async routes(app: FastifyInstance, deps: DashboardDeps) {
    const listPage = async (request: FastifyRequest, reply: FastifyReply, failed?: { errors: FormErrors; values: Body; status: number }) => {
      const rows = await deps.coproducers.list(ownAccount(request).id, PAGE_SIZE);
      const errors = failed?.errors ?? NO_ERRORS;
      const v = failed?.values ?? {};
      const csrf = deps.csrf(reply);
      return deps.render(request, reply, {
        title: 'Coproducers', status: failed?.status, body: html`<h1>Coproducers</h1>
<p class="muted">People you split charges with. A split item names a coproducer by e-mail; each charge uses the recipient id of the gateway that takes it.</p>
<div class="table-wrap card"><table class="coproducers">
<thead><tr><th>Name</th><th>E-mail</th><th>Recipients</th><th>Created</th><th></th></tr></thead>
<tbody>
${rows.length === 0 ? html`<tr><td colspan="5" class="muted">No coproducers yet.</td></tr>` : rows.map((c) => html`<tr data-coproducer="${c.id}">
  <td data-label="Name"><a href="/dashboard/coproducers/${c.id}">${c.name}</a></td>
  <td data-label="E-mail">${c.email}</td>
  <td data-label="Recipients">${recipientList(c)}</td>
  <td data-label="Created">${formatDate(c.createdAt)}</td>
  <td class="actions">${buttonForm(`/dashboard/coproducers/${c.id}/delete`, 'Delete', csrf, { style: 'danger', confirm: `Delete coproducer ${c.email}? Charges already made keep their split.` })}</td>
</tr>`)}
</tbody></table></div>
${rows.length === PAGE_SIZE ? html`<p class="muted small">The ${PAGE_SIZE} newest are shown; GET /api/v1/coproducers lists them all.</p>` : ''}
<section class="card">
<h2>Add a coproducer</h2>
${formMessages(errors)}
<form method="post" action="/dashboard/coproducers" class="grid" id="new-coproducer" novalidate>
  ${csrfField(csrf)}
  ${field({ name: 'email', label: 'E-mail', type: 'email', value: v.email, errors, required: true })}
  ${field({ name: 'name', label: 'Name', value: v.name, errors, required: true })}
  ${GATEWAYS.map((g) => field({ name: recipientField(g.id), label: `${g.name} recipient id (optional)`, value: v[recipientField(g.id)], errors, hint: recipientHint(g), autocomplete: 'off' }))}
  <div class="actions"><button type="submit">Add coproducer</button></div>
</form>
</section>`,
      });
    };

    const detailPage = (request: FastifyRequest, reply: FastifyReply, c: CoproducerRecord, failed?: { form: string; errors: FormErrors; values: Body; status: number }) => {
      const csrf = deps.csrf(reply);
      const errorsOf = (form: string) => (failed?.form === form ? failed.errors : NO_ERRORS);
      const valueOf = (form: string, name: string, stored: string | undefined) => (failed?.form === form ? failed.values[name] : stored);
      return deps.render(request, reply, {
        title: `Coproducer ${c.name}`, status: failed?.status, body: html`<p><a href="/dashboard/coproducers">← Coproducers</a></p>
<h1>${c.name}</h1>
<section class="card">
<h2>Name and e-mail</h2>
${formMessages(errorsOf('profile'))}
<form method="post" action="/dashboard/coproducers/${c.id}" class="grid" id="coproducer-profile" novalidate>
  ${csrfField(csrf)}
  ${field({ name: 'email', label: 'E-mail', type: 'email', value: valueOf('profile', 'email', c.email), errors: errorsOf('profile'), required: true })}
  ${field({ name: 'name', label: 'Name', value: valueOf('profile', 'name', c.name), errors: errorsOf('profile'), required: true })}
  <div class="actions"><button type="submit">Save</button></div>
</form>
</section>
<section class="cards">
${GATEWAYS.map((g) => {
          const errors = errorsOf(g.id);
          return html`<form method="post" action="/dashboard/coproducers/${c.id}/recipients/${g.id}" class="card" data-gateway="${g.id}" novalidate>
  ${csrfField(csrf)}
  <h3>${g.name}</h3>
  ${formMessages(errors)}
  ${field({ name: recipientField(g.id), label: 'Recipient id', value: valueOf(g.id, recipientField(g.id), c.recipients[g.id]), errors, hint: html`${recipientHint(g)}. Empty removes it.`, autocomplete: 'off' })}
  <button type="submit" class="secondary">Save ${g.name} recipient</button>
</form>`;
        })}
</section>
<p>${buttonForm(`/dashboard/coproducers/${c.id}/delete`, 'Delete coproducer', csrf, { style: 'danger', confirm: `Delete coproducer ${c.email}? Charges already made keep their split.` })}</p>`,
      });
    };

    app.get('/coproducers', { config: { audience: 'owner' } }, async (request, reply) => listPage(request, reply));

    app.post<{ Body: Body }>('/coproducers', { config: { audience: 'owner' } }, async (request, reply) => {
      const body = request.body ?? {};
      const recipients: Record<string, string> = {};
      for (const g of GATEWAYS) {
        const id = text(body[recipientField(g.id)]);
        if (id) recipients[g.id] = id;
      }
      const input: CoproducerInput = { email: text(body.email), name: text(body.name), recipients };
      try {
        assertSchema(deps, 'coproducer-request', input);
        const created = await deps.coproducers.create(ownAccount(request).id, input);
        return deps.done(request, reply, '/dashboard/coproducers', `Coproducer ${created.email} added.`);
      } catch (err) {
        return listPage(request, reply, { errors: formErrors(err), values: body, status: statusOf(err) });
      }
    });

    app.get<{ Params: { id: string } }>('/coproducers/:id', { config: { audience: 'owner' } }, async (request, reply) =>
      detailPage(request, reply, await deps.coproducers.get(ownAccount(request).id, request.params.id)));

    app.post<{ Params: { id: string }; Body: Body }>('/coproducers/:id', { config: { audience: 'owner' } }, async (request, reply) => {
      const accountId = ownAccount(request).id;
      const current = await deps.coproducers.get(accountId, request.params.id); // another account's: 404 before anything else
      const body = request.body ?? {};
      const patch: CoproducerPatch = { email: text(body.email), name: text(body.name) };
      try {
        assertSchema(deps, 'coproducer-patch', patch);
        await deps.coproducers.update(accountId, current.id, patch);
      } catch (err) {
        return detailPage(request, reply, current, { form: 'profile', errors: formErrors(err), values: body, status: statusOf(err) });
      }
      return deps.done(request, reply, `/dashboard/coproducers/${current.id}`, 'Coproducer saved.');
    });

    app.post<{ Params: { id: string; gateway: string }; Body: Body }>('/coproducers/:id/recipients/:gateway', { config: { audience: 'owner' } }, async (request, reply) => {
      const accountId = ownAccount(request).id;
      const current = await deps.coproducers.get(accountId, request.params.id);
      const gateway = resolveGatewayId(request.params.gateway);
      if (!gateway) throw rgError('UNKNOWN_GATEWAY', { gateway: request.params.gateway });
      const body = request.body ?? {};
      const value = text(body[recipientField(gateway)]);
      // Empty removes the gateway's recipient: PATCH's null.
      const patch: CoproducerPatch = { recipients: { [gateway]: value || null } };
      try {
        assertSchema(deps, 'coproducer-patch', patch);
        await deps.coproducers.update(accountId, current.id, patch);
      } catch (err) {
        return detailPage(request, reply, current, { form: gateway, errors: formErrors(err), values: body, status: statusOf(err) });
      }
      const name = GATEWAYS.find((g) => g.id === gateway)!.name;
      return deps.done(request, reply, `/dashboard/coproducers/${current.id}`, value ? `${name} recipient saved.` : `${name} recipient removed.`);
    });

    app.post<{ Params: { id: string } }>('/coproducers/:id/delete', { config: { audience: 'owner' } }, async (request, reply) => {
      const accountId = ownAccount(request).id;
      const current = await deps.coproducers.get(accountId, request.params.id);
      await deps.coproducers.delete(accountId, current.id);
      return deps.done(request, reply, '/dashboard/coproducers', `Coproducer ${current.email} deleted.`);
    });
  },
};

function recipientList(c: CoproducerRecord) {
  const set = GATEWAYS.filter((g) => c.recipients[g.id]);
  if (set.length === 0) return html`<span class="muted">none</span>`;
  return set.map((g) => html`<span class="recipient" data-gateway="${g.id}">${g.name}: <code>${c.recipients[g.id]}</code></span> `);
}

function statusOf(err: unknown): number {
  return (err as { statusCode?: number }).statusCode ?? 400;
}
