import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html } from '../html';
import { csrfField, field, formErrors, formMessages, select, NO_ERRORS, type FormErrors } from '../forms';
import { GATEWAY_CHOICES, gatewayName } from '../gateway-labels';
import { ownAccount, type DashboardDeps, type DashboardPage } from '../context';
import { forwardPolicy, updateSettings, type SettingsPatch } from '../../accounts/settings';
import { GATEWAYS } from '../../gateways/registry';
import { fieldSummary, rgError } from '../../errors';
import type { SettingsRow } from '../../store/accounts';

type SettingsBody = Record<string, string | string[] | undefined>;

const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const orNull = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

// The boolean settings gateways declare for themselves (descriptor.accountSettings), shown as checkboxes.
const GATEWAY_SETTINGS = GATEWAYS.flatMap((g) => Object.entries(g.accountSettings ?? {}).map(([name, spec]) => ({ name, gateway: g.name, ...spec })));

/** The form as a settings patch; `move` (an up/down button) reorders the ticked fallbacks first. */
export function patchFromForm(body: SettingsBody): SettingsPatch {
  const fallbacks = list(body.fallbacks);
  const [dir, id] = String(body.move ?? '').split(':');
  const i = fallbacks.indexOf(id);
  const j = dir === 'up' ? i - 1 : dir === 'down' ? i + 1 : -1;
  if (i >= 0 && j >= 0 && j < fallbacks.length) [fallbacks[i], fallbacks[j]] = [fallbacks[j], fallbacks[i]];
  const patch: SettingsPatch = {
    primaryGateway: orNull(body.primaryGateway), gatewayFallbacks: fallbacks, compatibilityMode: orNull(body.compatibilityMode),
    responseFormat: String(body.responseFormat ?? 'full') as SettingsRow['responseFormat'], webhookForwardUrl: orNull(body.webhookForwardUrl),
  };
  for (const s of GATEWAY_SETTINGS) patch[s.name] = list(body[s.name]).includes('on');
  return patch;
}

/** Owner: routing (primary, ordered fallbacks), compatibility mode, response format, webhook forward URL. */
export const settings: DashboardPage = {
  nav: { label: 'Settings', path: '/dashboard/settings', audience: 'owner' },
  routes(app: FastifyInstance, deps: DashboardDeps) {
    const page = (request: FastifyRequest, reply: FastifyReply, s: SettingsRow, errors: FormErrors = NO_ERRORS) => {
      const csrf = deps.csrf(reply);
      // Ticked fallbacks first, in their order; then the other gateways to tick.
      const order = [...s.gatewayFallbacks, ...GATEWAY_CHOICES.map((g) => g.value).filter((g) => !s.gatewayFallbacks.includes(g))];
      const none = { value: '', label: 'none' };
      return deps.render(request, reply, {
        title: 'Settings', status: errors === NO_ERRORS ? 200 : 400, body: html`<h1>Settings</h1>
${formMessages(errors)}
<form method="post" action="/dashboard/settings" class="card settings" novalidate>
  ${csrfField(csrf)}
  <h2>Routing</h2>
  ${select({ name: 'primaryGateway', label: 'Primary gateway', options: [none, ...GATEWAY_CHOICES], value: s.primaryGateway, errors, hint: 'Charges go here first unless a request names a gateway.' })}
  <fieldset class="field${errors.fields.gatewayFallbacks ? ' has-error' : ''}">
    <legend>Fallbacks, in the order they are tried</legend>
    <ol class="fallbacks">
    ${order.map((g, i) => {
          const ticked = s.gatewayFallbacks.includes(g);
          return html`<li data-gateway="${g}">
      <label><input type="checkbox" name="fallbacks" value="${g}"${ticked ? html` checked` : ''}> ${gatewayName(g)}</label>
      ${ticked ? html`<span class="order">
        <button type="submit" name="move" value="up:${g}" class="secondary small" aria-label="Move ${gatewayName(g)} up"${i === 0 ? html` disabled` : ''}>↑</button>
        <button type="submit" name="move" value="down:${g}" class="secondary small" aria-label="Move ${gatewayName(g)} down"${i === s.gatewayFallbacks.length - 1 ? html` disabled` : ''}>↓</button>
      </span>` : ''}
    </li>`;
        })}
    </ol>
    ${errors.fields.gatewayFallbacks ? html`<p class="error" role="alert">${errors.fields.gatewayFallbacks}</p>` : ''}
  </fieldset>
  <h2>API behaviour</h2>
  ${select({ name: 'compatibilityMode', label: 'Compatibility mode', options: [{ value: '', label: 'off (RouteGate format)' }, ...GATEWAY_CHOICES], value: s.compatibilityMode, errors, hint: "Accept and answer that gateway's native charge format." })}
  ${select({ name: 'responseFormat', label: 'Response format', options: [{ value: 'full', label: 'full (normalized + gateway response)' }, { value: 'normalized', label: 'normalized' }, { value: 'raw', label: 'raw (gateway body)' }], value: s.responseFormat, errors })}
  ${field({ name: 'webhookForwardUrl', label: 'Webhook forward URL', type: 'url', value: s.webhookForwardUrl, errors, placeholder: 'https://your-backend.example.com/webhooks', hint: 'Your backend, which receives the normalized events.' })}
  ${GATEWAY_SETTINGS.map((g) => html`<div class="field"><label><input type="checkbox" name="${g.name}"${s[g.name] === true ? html` checked` : ''}> ${g.gateway}: ${g.description}</label></div>`)}
  <button type="submit">Save settings</button>
</form>`,
      });
    };

    app.get('/settings', { config: { audience: 'owner' } }, async (request, reply) => page(request, reply, await deps.store.accounts.settings(ownAccount(request).id)));

    app.post<{ Body: SettingsBody }>('/settings', { config: { audience: 'owner' } }, async (request, reply) => {
      const accountId = ownAccount(request).id;
      const patch = patchFromForm(request.body ?? {});
      try {
        // The API's schema, then the API's rules: the same checks PATCH /clients/settings makes.
        deps.validator.assert('settings-patch', patch, '', (errors) => rgError('SETTINGS_INVALID', { fields: fieldSummary(errors) }, { details: { errors } }));
        await updateSettings(deps.store, accountId, patch, forwardPolicy(app));
      } catch (err) {
        const errors = formErrors(err, (f) => f.split('.')[0]);
        return page(request, reply, { ...(await deps.store.accounts.settings(accountId)), ...(patch as Partial<SettingsRow>) } as SettingsRow, errors);
      }
      const moved = request.body?.move ? 'Fallback order changed.' : 'Settings saved.';
      return deps.done(request, reply, '/dashboard/settings', moved);
    });
  },
};
