import type { FastifyInstance } from 'fastify';
import { html } from '../html';
import { field, formErrors, formMessages, csrfField, NO_ERRORS, type FormErrors } from '../forms';
import type { DashboardDeps, DashboardPage } from '../context';
import { MIN_PASSWORD_LENGTH } from '../../auth/passwords';

/**
 * An account owner opens the operator's invitation link and sets a password. The token travels in the query
 * string (log lines drop query strings whole) and then in the form body, never in a path.
 */
export const invitation: DashboardPage = {
  async routes(app: FastifyInstance, deps: DashboardDeps) {
    const form = (csrf: string, token: string, email: string, errors: FormErrors) => html`<section class="narrow card">
<h1>Set your password</h1>
<p>You will sign in as <strong>${email}</strong>.</p>
${formMessages(errors)}
<form method="post" action="/dashboard/invite" novalidate>
  ${csrfField(csrf)}
  <input type="hidden" name="token" value="${token}">
  ${field({ name: 'password', label: 'Password', type: 'password', errors, required: true, autocomplete: 'new-password', hint: `At least ${MIN_PASSWORD_LENGTH} characters.` })}
  <button type="submit">Set password and sign in</button>
</form>
</section>`;
    const emailOf = async (token: string) => (await deps.store.accounts.get(await deps.logins.invitation(token)))!.email;

    app.get<{ Querystring: { token?: string } }>('/invite', { config: { audience: 'public' } }, async (request, reply) => {
      const token = String(request.query.token ?? '');
      return deps.render(request, reply, { title: 'Invitation', body: form(deps.csrf(reply), token, await emailOf(token), NO_ERRORS) });
    });

    app.post<{ Body: { token?: string; password?: string } }>('/invite', { config: { audience: 'public' } }, async (request, reply) => {
      const token = String(request.body?.token ?? '');
      const email = await emailOf(token);
      try {
        const subject = await deps.logins.acceptInvitation(token, String(request.body?.password ?? ''));
        request.session.regenerate();
        request.session.set('sid', await deps.sessions.start(subject));
        return deps.done(request, reply, '/dashboard/overview', 'Password set. Welcome!');
      } catch (err) {
        return deps.render(request, reply, { title: 'Invitation', status: 400, body: form(deps.csrf(reply), token, email, formErrors(err)) });
      }
    });
  },
};
