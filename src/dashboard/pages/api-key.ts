import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html, type Html } from '../html';
import { buttonForm } from '../forms';
import { formatDate } from '../layout';
import { ownAccount, type DashboardDeps, type DashboardPage } from '../context';
import { AccountService } from '../../accounts/service';

/** Owner: Settings → API. "Generate new key" shows the key once; the previous key is refused from that moment. */
export const apiKey: DashboardPage = {
  nav: { label: 'API key', path: '/dashboard/api-key', audience: 'owner' },
  async routes(app: FastifyInstance, deps: DashboardDeps) {
    const service = new AccountService(deps.store);
    const page = async (request: FastifyRequest, reply: FastifyReply, shown?: string) => {
      const account = ownAccount(request);
      const live = await deps.store.apiKeys.live(account.id);
      const fresh: Html | string = shown ? html`<div class="alert ok" role="status">
<p><strong>Your new API key.</strong> Copy it now: it is shown only this once (only its hash is kept). The previous key no longer works.</p>
<p class="secret"><code id="new-key">${shown}</code> <button type="button" class="copy" data-copy="new-key">Copy</button></p>
</div>` : '';
      return deps.render(request, reply, {
        title: 'API key', body: html`<h1>Settings → API</h1>
${fresh}
<section class="card">
<h2>API key</h2>
<p>Current key: ${live ? html`<code id="key-hint">${live.hint}</code> <span class="muted">generated ${formatDate(live.createdAt)}</span>` : 'none'}</p>
<p>Send it in the <code>x-api-key</code> header of every API call. Generating a new key revokes the current one at once: update your integration right after.</p>
${buttonForm('/dashboard/api-key', 'Generate new key', deps.csrf(reply), { style: 'primary', confirm: 'Generate a new key? The current key stops working immediately.' })}
</section>`,
      });
    };

    // The new key rides in the encrypted session cookie for exactly one page view, then is gone: POST/redirect/GET,
    // so reloading the page can never generate (and revoke) another key.
    app.get('/api-key', { config: { audience: 'owner' } }, async (request, reply) => {
      const shown = request.session.get('newKey');
      if (shown) request.session.set('newKey', undefined);
      return page(request, reply, shown);
    });

    app.post('/api-key', { config: { audience: 'owner' } }, async (request, reply) => {
      const rotated = (await service.rotateKey(ownAccount(request).id))!;
      request.session.set('newKey', rotated.apiKey);
      return reply.redirect('/dashboard/api-key', 303);
    });
  },
};
