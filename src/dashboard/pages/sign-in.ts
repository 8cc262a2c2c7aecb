import type { FastifyInstance } from 'fastify';
import { html } from '../html';
import { field, formErrors, formMessages, csrfField, NO_ERRORS, type FormErrors } from '../forms';
import type { DashboardDeps, DashboardPage } from '../context';

type LoginBody = { email?: string; password?: string };

/** Sign in (operators and account owners on one form), sign out. */
export const signIn: DashboardPage = {
  routes(app: FastifyInstance, deps: DashboardDeps) {
    const form = (csrf: string, email: string, errors: FormErrors) => html`<section class="narrow card">
<h1>Sign in</h1>
<p class="muted">Operators and account owners sign in here.</p>
${formMessages(errors)}
<form method="post" action="/dashboard/login" novalidate>
  ${csrfField(csrf)}
  ${field({ name: 'email', label: 'E-mail', type: 'email', value: email, errors, required: true, autocomplete: 'username' })}
  ${field({ name: 'password', label: 'Password', type: 'password', errors, required: true, autocomplete: 'current-password' })}
  <button type="submit">Sign in</button>
</form>
</section>`;

    app.get('/login', { config: { audience: 'public' } }, async (request, reply) => {
      if (request.dashboardUser) return reply.redirect('/dashboard', 303);
      return deps.render(request, reply, { title: 'Sign in', body: form(deps.csrf(reply), '', NO_ERRORS) });
    });

    app.post<{ Body: LoginBody }>('/login', { config: { audience: 'public' } }, async (request, reply) => {
      const email = String(request.body?.email ?? '').trim();
      const password = String(request.body?.password ?? '');
      try {
        const subject = await deps.logins.authenticate(email, password, request.ip);
        // A new session (and CSRF secret) at every sign-in: nothing set before it carries over (session fixation).
        request.session.regenerate();
        request.session.set('sid', await deps.sessions.start(subject));
        return deps.done(request, reply, '/dashboard', 'Signed in.');
      } catch (err) {
        const errors = formErrors(err);
        const rg = err as { statusCode?: number; extra?: { headers?: Record<string, string> } };
        for (const [k, v] of Object.entries(rg.extra?.headers ?? {})) reply.header(k, v);
        return deps.render(request, reply, { title: 'Sign in', status: rg.statusCode ?? 400, body: form(deps.csrf(reply), email, { fields: { password: errors.form.join(' ') }, form: [] }) });
      }
    });

    app.post('/logout', { config: { audience: 'public' } }, async (request, reply) => {
      const sid = request.session.get('sid');
      if (sid) await deps.sessions.end(sid);
      request.session.regenerate();
      return deps.done(request, reply, '/dashboard/login', 'Signed out.');
    });
  },
};
