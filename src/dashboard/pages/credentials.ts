import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html } from '../html';
import { buttonForm, csrfField, field, formErrors, formMessages, NO_ERRORS, type FormErrors } from '../forms';
import { formatDate } from '../layout';
import { ownAccount, type DashboardDeps, type DashboardPage } from '../context';
import { GATEWAYS } from '../../gateways/registry';
import { deleteCredentials, saveCredentials } from '../../accounts/credentials-input';

/**
 * Owner: one card per registered gateway (fields from its descriptor): stored values masked, a form to store or
 * replace them all (never pre-filled: stored secrets are not shown), delete.
 */
export const credentials: DashboardPage = {
  nav: { label: 'Credentials', path: '/dashboard/credentials', audience: 'owner' },
  async routes(app: FastifyInstance, deps: DashboardDeps) {
    const page = async (request: FastifyRequest, reply: FastifyReply, failed?: { gateway: string; errors: FormErrors; values: Record<string, string> }) => {
      const account = ownAccount(request);
      const csrf = deps.csrf(reply);
      const stored = new Map((await deps.vault.list(account.id)).map((c) => [c.gateway as string, c]));
      return deps.render(request, reply, {
        title: 'Credentials', status: failed ? 400 : 200, body: html`<h1>Gateway credentials</h1>
<p class="muted">Stored encrypted; shown masked. Saving replaces every field of that gateway.</p>
<div class="cards">
${GATEWAYS.map((g) => {
          const saved = stored.get(g.id);
          const errors = failed?.gateway === g.id ? failed.errors : NO_ERRORS;
          const values = failed?.gateway === g.id ? failed.values : {};
          return html`<section class="card" id="gateway-${g.id}" data-gateway="${g.id}">
<h2>${g.name} ${saved ? html`<span class="badge ok">configured</span>` : html`<span class="badge off">not configured</span>`}</h2>
${saved ? html`<dl class="masked">${Object.entries(saved.credentials).map(([k, v]) => html`<dt>${k}</dt><dd><code>${v}</code></dd>`)}</dl>
<p class="muted small">Updated ${formatDate(saved.updatedAt)}</p>` : ''}
${formMessages(errors)}
<form method="post" action="/dashboard/credentials/${g.id}" novalidate>
  ${csrfField(csrf)}
  ${Object.entries(g.credentials).map(([name, spec]) => field({
            name, label: `${name}${spec.required ? '' : ' (optional)'}`, type: spec.secret ? 'password' : 'text', errors, autocomplete: 'off',
            value: spec.secret ? '' : values[name], hint: spec.description,
          }))}
  <button type="submit">${saved ? 'Replace' : 'Save'} ${g.name} credentials</button>
</form>
${saved ? buttonForm(`/dashboard/credentials/${g.id}/delete`, `Delete ${g.name} credentials`, csrf, { style: 'danger', confirm: `Delete the ${g.name} credentials? Charges skip ${g.name} until new ones are stored.` }) : ''}
</section>`;
        })}
</div>`,
      });
    };

    app.get('/credentials', { config: { audience: 'owner' } }, async (request, reply) => page(request, reply));

    app.post<{ Params: { gateway: string }; Body: Record<string, string> }>('/credentials/:gateway', { config: { audience: 'owner' } }, async (request, reply) => {
      const descriptor = GATEWAYS.find((g) => g.id === request.params.gateway);
      // Only the gateway's own fields, and only the ones filled in: an empty optional field is "not set".
      const values: Record<string, string> = {};
      for (const name of Object.keys(descriptor?.credentials ?? {})) {
        const v = String(request.body?.[name] ?? '').trim();
        if (v) values[name] = v;
      }
      try {
        await saveCredentials(deps.vault, deps.validator, ownAccount(request).id, request.params.gateway, values);
      } catch (err) {
        return page(request, reply, { gateway: request.params.gateway, errors: formErrors(err, (f) => f.replace(/^credentials\.?/, '') || undefined), values });
      }
      return deps.done(request, reply, `/dashboard/credentials#gateway-${descriptor!.id}`, `${descriptor!.name} credentials saved.`);
    });

    app.post<{ Params: { gateway: string } }>('/credentials/:gateway/delete', { config: { audience: 'owner' } }, async (request, reply) => {
      const gateway = await deleteCredentials(deps.vault, ownAccount(request).id, request.params.gateway);
      return deps.done(request, reply, '/dashboard/credentials', `${GATEWAYS.find((g) => g.id === gateway)?.name ?? gateway} credentials deleted.`);
    });
  },
};
