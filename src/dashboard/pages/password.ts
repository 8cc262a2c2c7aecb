import type { FastifyInstance } from 'fastify';
import { html } from '../html';
import { field, formErrors, formMessages, csrfField, NO_ERRORS, type FormErrors } from '../forms';
import type { DashboardDeps, DashboardPage } from '../context';
import { MIN_PASSWORD_LENGTH } from '../../auth/passwords';

/** A signed-in user changes their own password; every other session of theirs ends. */
export const password: DashboardPage = {
  routes(app: FastifyInstance, deps: DashboardDeps) {
    const form = (csrf: string, errors: FormErrors) => html`<section class="narrow card">
<h1>Change password</h1>
<p class="muted">Every other signed-in browser of yours is signed out.</p>
${formMessages(errors)}
<form method="post" action="/dashboard/password" novalidate>
  ${csrfField(csrf)}
  ${field({ name: 'currentPassword', label: 'Current password', type: 'password', errors, required: true, autocomplete: 'current-password' })}
  ${field({ name: 'password', label: 'New password', type: 'password', errors, required: true, autocomplete: 'new-password', hint: `At least ${MIN_PASSWORD_LENGTH} characters.` })}
  <button type="submit">Change password</button>
</form>
</section>`;

    app.get('/password', { config: { audience: 'signed-in' } }, async (request, reply) =>
      deps.render(request, reply, { title: 'Password', body: form(deps.csrf(reply), NO_ERRORS) }));

    app.post<{ Body: { currentPassword?: string; password?: string } }>('/password', { config: { audience: 'signed-in' } }, async (request, reply) => {
      const user = request.dashboardUser!;
      try {
        await deps.logins.changePassword({ kind: user.kind, subjectId: user.subjectId }, String(request.body?.currentPassword ?? ''), String(request.body?.password ?? ''));
      } catch (err) {
        return deps.render(request, reply, { title: 'Password', status: 400, body: form(deps.csrf(reply), formErrors(err)) });
      }
      // All sessions ended, this one included: this browser gets a new one.
      request.session.regenerate();
      request.session.set('sid', await deps.sessions.start({ kind: user.kind, subjectId: user.subjectId }));
      return deps.done(request, reply, '/dashboard', 'Password changed. Other browsers were signed out.');
    });
  },
};
