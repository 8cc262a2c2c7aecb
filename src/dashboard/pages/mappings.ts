import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html } from '../html';
import { buttonForm } from '../forms';
import { formatDate } from '../layout';
import type { DashboardDeps, DashboardPage } from '../context';

/**
 * Operator: the mapping set in use (folder, version, fixtures failing under the override) and a reload button, the
 * same reload as `npx routegate mappings reload` and SIGHUP (docs/mappings.md): swapped only if every fixture and the
 * money guard pass, otherwise the running set stays and the page says why.
 */
export const mappings: DashboardPage = {
  nav: { label: 'Mappings', path: '/dashboard/mappings', audience: 'operator' },
  async routes(app: FastifyInstance, deps: DashboardDeps) {
    const page = (request: FastifyRequest, reply: FastifyReply) => {
      const state = deps.mappingState;
      const csrf = deps.csrf(reply);
      if (!state) return deps.render(request, reply, { title: 'Mappings', body: html`<h1>Mappings</h1><p>No mapping set is attached to this dashboard.</p>` });
      const set = state.describe();
      return deps.render(request, reply, {
        title: 'Mappings', body: html`<h1>Mappings</h1>
<section class="card">
<h2>In use</h2>
<dl>
  <dt>Folder</dt><dd><code>${set.folder}</code></dd>
  <dt>Version</dt><dd><code data-version>${set.version}</code></dd>
  <dt>Loaded</dt><dd>${formatDate(set.loadedAt)}</dd>
  <dt>Failing fixtures</dt><dd>${set.failingFixtures.length === 0 ? 'none' : html`<strong>${set.failingFixtures.length}</strong> (started under ROUTEGATE_ALLOW_FAILING_MAPPINGS)<ul>${set.failingFixtures.map((f) => html`<li><code>${f}</code></li>`)}</ul>`}</dd>
</dl>
${buttonForm('/dashboard/mappings/reload', 'Reload mappings', csrf, { style: 'primary' })}
<p class="muted">Compiles the folder, runs every fixture through the money guard, and swaps the new set in only if all pass.</p>
</section>
${state.lastReloadProblems.length ? html`<section class="card" data-reload-problems>
<h2>Last reload refused</h2>
<p>The running set was kept because:</p>
<ul>${state.lastReloadProblems.slice(0, 50).map((p) => html`<li><code>${p}</code></li>`)}</ul>
</section>` : ''}`,
      });
    };
    app.get('/mappings', { config: { audience: 'operator' } }, async (request, reply) => page(request, reply));
    app.post('/mappings/reload', { config: { audience: 'operator' } }, async (request, reply) => {
      const state = deps.mappingState;
      if (!state) return page(request, reply);
      const result = await state.reload();
      request.log[result.reloaded ? 'info' : 'error']({ reload: result }, result.reloaded ? 'mappings reloaded from the dashboard' : 'mappings reload refused: the running set is kept');
      return deps.done(request, reply, '/dashboard/mappings', result.reloaded
        ? `Mappings reloaded: version ${result.version}.`
        : `Reload refused: ${result.problems.length} problem${result.problems.length === 1 ? '' : 's'}; the running set (version ${result.version}) is kept.`);
    });
  },
};
