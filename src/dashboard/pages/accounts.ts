import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html, type Html } from '../html';
import { buttonForm, field, formErrors, formMessages, csrfField, NO_ERRORS, type FormErrors } from '../forms';
import { formatDate } from '../layout';
import type { DashboardDeps, DashboardPage } from '../context';
import { AccountService } from '../../accounts/service';
import { createAccountWithOwner } from '../../accounts/onboarding';
import { MIN_PASSWORD_LENGTH } from '../../auth/passwords';
import { rgError } from '../../errors';
import { webhookUrls } from '../../accounts/webhook-urls';

type NewAccountBody = { name?: string; email?: string; password?: string };

/**
 * Operator: accounts with search, create (owner password or invitation link), activate/deactivate, new invitation,
 * compatibility passthrough on/off and webhook token rotation (operator-only controls: never the account's API key).
 */
export const accounts: DashboardPage = {
  nav: { label: 'Accounts', path: '/dashboard/accounts', audience: 'operator' },
  async routes(app: FastifyInstance, deps: DashboardDeps) {
    const service = new AccountService(deps.store);
    const inviteUrl = (token: string) => `${deps.publicUrl()}/dashboard/invite?token=${encodeURIComponent(token)}`;

    const page = async (request: FastifyRequest, reply: FastifyReply, o: { q?: string; values?: NewAccountBody; errors?: FormErrors; notice?: Html; status?: number }) => {
      const csrf = deps.csrf(reply);
      const q = (o.q ?? '').trim().toLowerCase();
      const rows = (await service.list()).filter((a) => !q || a.name.toLowerCase().includes(q) || a.email.toLowerCase().includes(q) || a.id.startsWith(q));
      const owned = new Set((await Promise.all(rows.map(async (a) => ((await deps.store.logins.ownerOf(a.id)) ? a.id : undefined)))).filter(Boolean));
      const errors = o.errors ?? NO_ERRORS;
      const v = o.values ?? {};
      return deps.render(request, reply, {
        title: 'Accounts', status: o.status, body: html`<h1>Accounts</h1>
${o.notice ?? ''}
<section class="card">
<h2>Create an account</h2>
${formMessages(errors)}
<form method="post" action="/dashboard/accounts" class="grid" novalidate>
  ${csrfField(csrf)}
  ${field({ name: 'name', label: 'Name', value: v.name, errors, required: true })}
  ${field({ name: 'email', label: "Owner's e-mail", type: 'email', value: v.email, errors, required: true })}
  ${field({ name: 'password', label: "Owner's password (optional)", type: 'password', errors, autocomplete: 'new-password', hint: `At least ${MIN_PASSWORD_LENGTH} characters; leave empty to get an invitation link for the owner instead.` })}
  <div class="actions"><button type="submit">Create account</button></div>
</form>
</section>
<section class="card">
<h2>All accounts</h2>
<form method="get" action="/dashboard/accounts" class="search" role="search">
  <label for="q" class="visually-hidden">Search accounts</label>
  <input id="q" name="q" type="search" value="${o.q ?? ''}" placeholder="Search by name, e-mail or id">
  <button type="submit" class="secondary">Search</button>
</form>
<div class="table-wrap"><table>
<thead><tr><th>Name</th><th>E-mail</th><th>Status</th><th>Owner sign-in</th><th>Created</th><th>Actions</th></tr></thead>
<tbody>
${rows.length === 0 ? html`<tr><td colspan="6" class="muted">No accounts${q ? ' match' : ' yet'}.</td></tr>` : rows.map((a) => html`<tr data-account="${a.id}">
  <td data-label="Name">${a.name}<br><code class="small">${a.id}</code></td>
  <td data-label="E-mail">${a.email}</td>
  <td data-label="Status"><span class="badge ${a.active ? 'ok' : 'off'}">${a.active ? 'active' : 'deactivated'}</span></td>
  <td data-label="Owner sign-in">${owned.has(a.id) ? 'password set' : 'not yet'}</td>
  <td data-label="Created">${formatDate(a.createdAt)}</td>
  <td data-label="Actions" class="actions">
    ${a.active ? buttonForm(`/dashboard/accounts/${a.id}/deactivate`, 'Deactivate', csrf, { confirm: `Deactivate ${a.name}? Its API key is refused until it is activated again.` })
      : buttonForm(`/dashboard/accounts/${a.id}/activate`, 'Activate', csrf)}
    ${buttonForm(`/dashboard/accounts/${a.id}/invitation`, 'New invitation link', csrf)}
    ${buttonForm(`/dashboard/accounts/${a.id}/passthrough`, a.compatPassthrough ? 'Turn passthrough off' : 'Turn passthrough on', csrf, {
      hidden: { state: a.compatPassthrough ? 'off' : 'on' },
      confirm: a.compatPassthrough ? undefined : `Let ${a.name}'s API key reach the gateways' allowlisted native paths with its stored credentials?`,
    })}
    <form method="post" action="/dashboard/accounts/${a.id}/webhook-token" class="inline" data-confirm="${`New webhook URLs for ${a.name}? The old ones keep working for the hours given.`}">${csrfField(csrf)}
      <label class="small">Old URLs work for <input name="keepOldHours" type="number" min="0" max="720" value="24" class="narrow"> hours</label>
      <button type="submit" class="secondary">Rotate webhook token</button></form>
  </td>
</tr>`)}
</tbody></table></div>
</section>`,
      });
    };
    const invitationNotice = (name: string, token: string) => html`<div class="alert ok" role="status">
<p>Send this one-time link to the owner of <strong>${name}</strong> (valid 7 days; shown only now):</p>
<p class="secret"><code id="invite-link">${inviteUrl(token)}</code> <button type="button" class="secondary copy" data-copy="invite-link">Copy</button></p></div>`;

    app.get<{ Querystring: { q?: string } }>('/accounts', { config: { audience: 'operator' } }, async (request, reply) => page(request, reply, { q: request.query.q }));

    app.post<{ Body: NewAccountBody }>('/accounts', { config: { audience: 'operator' } }, async (request, reply) => {
      const values = { name: String(request.body?.name ?? ''), email: String(request.body?.email ?? ''), password: String(request.body?.password ?? '') };
      try {
        const created = await createAccountWithOwner(deps.store, deps.logins, values);
        if (created.invitation) return page(request, reply, { status: 201, notice: invitationNotice(values.name.trim(), created.invitation) });
        return deps.done(request, reply, '/dashboard/accounts', `Account ${values.name.trim()} created; its owner signs in with ${values.email.trim()}.`);
      } catch (err) {
        return page(request, reply, { status: 400, values: { name: values.name, email: values.email }, errors: formErrors(err) });
      }
    });

    for (const action of ['activate', 'deactivate'] as const) {
      app.post<{ Params: { id: string } }>(`/accounts/:id/${action}`, { config: { audience: 'operator' } }, async (request, reply) => {
        const account = await service.get(request.params.id);
        if (!account || !await service.setActive(account.id, action === 'activate')) throw rgError('ACCOUNT_NOT_FOUND', { id: request.params.id });
        return deps.done(request, reply, '/dashboard/accounts', `${account.name} ${action === 'activate' ? 'activated' : 'deactivated'}.`);
      });
    }

    app.post<{ Params: { id: string }; Body: { state?: string } }>('/accounts/:id/passthrough', { config: { audience: 'operator' } }, async (request, reply) => {
      const account = await service.get(request.params.id);
      const on = request.body?.state === 'on';
      if (!account || !await service.setCompatPassthrough(account.id, on)) throw rgError('ACCOUNT_NOT_FOUND', { id: request.params.id });
      return deps.done(request, reply, '/dashboard/accounts', `Compatibility passthrough ${on ? 'on' : 'off'} for ${account.name}.`);
    });

    // As `routegate webhooks rotate-token ID --keep-old-hours N`: the new URLs shown once here.
    app.post<{ Params: { id: string }; Body: { keepOldHours?: string } }>('/accounts/:id/webhook-token', { config: { audience: 'operator' } }, async (request, reply) => {
      const account = await service.get(request.params.id);
      if (!account) throw rgError('ACCOUNT_NOT_FOUND', { id: request.params.id });
      const raw = String(request.body?.keepOldHours ?? '24').trim();
      if (!/^\d{1,3}$/.test(raw) || Number(raw) > 720) throw rgError('WEBHOOK_TOKEN_OVERLAP_INVALID');
      const rotated = (await service.rotateWebhookToken(account.id, Number(raw)))!;
      const urls = webhookUrls(deps.publicUrl(), rotated.webhookToken);
      return page(request, reply, { notice: html`<div class="alert ok" role="status">
<p>New webhook URLs for <strong>${account.name}</strong>; point each gateway at its URL. ${raw === '0' ? 'The old URLs answer 404 from now on.' : `The old URLs keep working for ${raw} hours.`}</p>
<ul class="webhook-urls">${Object.entries(urls).map(([g, url]) => html`<li>${g}: <code>${url}</code></li>`)}</ul></div>` });
    });

    app.post<{ Params: { id: string } }>('/accounts/:id/invitation', { config: { audience: 'operator' } }, async (request, reply) => {
      const account = await service.get(request.params.id);
      if (!account) throw rgError('ACCOUNT_NOT_FOUND', { id: request.params.id });
      return page(request, reply, { notice: invitationNotice(account.name, await deps.logins.invite(account.id)) });
    });
  },
};
