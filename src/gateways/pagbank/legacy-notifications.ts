import { readFlatXml } from '../../lib/flat-xml';
import { GatewayFailure, type CallContext } from '../types';
import { stringAt, type WebhookRequest } from '../webhook';

// PagBank's legacy notifications (docs/webhooks.md, "PagBank chargebacks"): chargebacks reach the seller only as a
// form-encoded POST `notificationCode=<code>&notificationType=transaction`, which carries nothing but the code and
// no signature. What it says is read back at the legacy transactions API with the account's email and token:
// GET /v3/transactions/notifications/{code}, an XML <transaction>. That read, RouteGate's own call with the
// account's credentials, is the only thing that can move a charge.

/** The notification code of a legacy notification; undefined for any other body. */
export function legacyNotificationCode(req: WebhookRequest): string | undefined {
  const type = stringAt(req.body, 'notificationType');
  const code = stringAt(req.body, 'notificationCode');
  return type === 'transaction' && code && /^[A-Za-z0-9-]{1,64}$/.test(code) ? code : undefined;
}

/** The legacy API beside the Orders API it is configured with: PagBank's own hosts, or the same origin (emulators). */
export function legacyOrigin(baseUrl: string): string {
  const host = new URL(baseUrl).hostname;
  if (host === 'api.pagseguro.com') return 'https://ws.pagseguro.uol.com.br';
  if (host === 'sandbox.api.pagseguro.com') return 'https://ws.sandbox.pagseguro.uol.com.br';
  return baseUrl.replace(/\/+$/, '');
}

/**
 * The transaction a legacy notification names, as PagBank answers it now: `{ legacyTransaction: { code, reference,
 * status, grossAmount, lastEventDate, ... } }` (leaf fields as strings); null when PagBank does not know the code
 * (a forged or foreign notification) or no token is stored. A failing PagBank throws: the notification is retried.
 */
export async function readLegacyTransaction(ctx: CallContext, code: string): Promise<unknown> {
  const token = ctx.credentials.token;
  if (!token) return null;
  // The legacy API wants the account's e-mail beside its token; an account that stored none sends the token in both
  // (the emulators accept it; PagBank itself needs the `email` credential).
  const email = ctx.credentials.email || token;
  const query = new URLSearchParams({ email, token }).toString();
  const reply = await ctx.http.send({
    gateway: ctx.gateway, method: 'GET', url: `${legacyOrigin(ctx.baseUrl)}/v3/transactions/notifications/${encodeURIComponent(code)}?${query}`,
    headers: { accept: 'application/xml' }, timeoutMs: ctx.timeoutMs, deadline: ctx.deadline,
  });
  if (reply.status === 400 || reply.status === 404) return null;
  if (reply.status === 401 || reply.status === 403) {
    throw new GatewayFailure('auth', ctx.gateway, `${ctx.gateway} refused the stored email and token for its transactions API (${reply.status})`, { status: reply.status, ambiguous: false });
  }
  if (reply.status >= 300) {
    throw new GatewayFailure('http_5xx', ctx.gateway, `${ctx.gateway} answered ${reply.status} to a transaction read`, { status: reply.status, ambiguous: false });
  }
  const doc = readFlatXml(reply.text);
  if (!doc || doc.root !== 'transaction' || !doc.fields.code) {
    throw new GatewayFailure('bad_response', ctx.gateway, `${ctx.gateway} answered a transaction read with something that is not a <transaction>`, { status: reply.status, ambiguous: false });
  }
  return { legacyTransaction: doc.fields };
}
