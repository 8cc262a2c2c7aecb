import { headerValue, hmacHex, parsePairs, safeEqual } from '../../lib/signatures';
import { GatewayFailure } from '../types';
import { invalid, stringAt, UNCONFIGURED, verified, type GatewayWebhook, type WebhookRequest } from '../webhook';
import { mercadopagoAdapter, readResource } from './adapter';

// x-signature `ts=<ts>,v1=<hex>` (shared/gateways/mercadopago.md section 7): HMAC-SHA256, keyed with the
// webhookSecret, of the manifest `id:<data.id>;request-id:<x-request-id>;ts:<ts>;` where data.id comes from the
// query string and a missing pair is dropped. data.id is tried verbatim, then lower-cased (the SDKs and the docs
// disagree for non-numeric ids). No replay window: MP documents none, and re-signs every retry.
// The notification is only a trigger: the payment is read with the account's token, and its status says what
// happened (refunds arrive as payment.updated). The notification id changes on every retry, so the dedupe key is
// (topic, data.id, the payment's status and date_last_updated).

const SUBSCRIPTION_TOPICS = new Set(['subscription_preapproval', 'preapproval']);

function topic(req: WebhookRequest): string | undefined {
  return req.query.type ?? req.query.topic ?? stringAt(req.body, 'type') ?? stringAt(req.body, 'topic');
}

function resourceId(req: WebhookRequest): string | undefined {
  return req.query['data.id'] ?? stringAt(req.body, 'data', 'id') ?? req.query.id;
}

export const mercadopagoWebhook: GatewayWebhook = {
  verify(req, keys) {
    const secret = keys.credentials.webhookSecret;
    if (!secret) return UNCONFIGURED;
    const header = headerValue(req.headers, 'x-signature');
    if (!header) return invalid('no x-signature header');
    const pairs = new Map(parsePairs(header));
    const ts = pairs.get('ts');
    const v1 = pairs.get('v1');
    if (!ts || !v1) return invalid('x-signature has no ts= or no v1=');
    const requestId = headerValue(req.headers, 'x-request-id');
    const dataId = req.query['data.id'];
    const manifest = (id?: string) => `${id ? `id:${id};` : ''}${requestId ? `request-id:${requestId};` : ''}ts:${ts};`;
    const ids = dataId && dataId.toLowerCase() !== dataId ? [dataId, dataId.toLowerCase()] : [dataId];
    const ok = ids.map((id) => safeEqual(v1.toLowerCase(), hmacHex(secret, manifest(id)))).some(Boolean);
    return ok ? verified('x-signature') : invalid('x-signature does not match the manifest');
  },

  async resolve(ctx, req) {
    const id = resourceId(req);
    const kind = topic(req);
    if (!id) return null;
    if (kind === 'payment') {
      try {
        return (await mercadopagoAdapter.retrieveCharge(ctx, { externalId: id, paymentMethod: 'credit_card', amount: 0 })).raw;
      } catch (err) {
        // A rejected payment reads as a decline; the payment itself is what the notification is about.
        if (err instanceof GatewayFailure && err.kind === 'decline' && err.info.body) return err.info.body;
        throw err;
      }
    }
    if (kind && SUBSCRIPTION_TOPICS.has(kind)) return readResource(ctx, `/preapproval/${encodeURIComponent(id)}`);
    return null;
  },

  eventId(req, resource) {
    const r = resource as Record<string, unknown> | null;
    const state = r ? `${String(r.status ?? '')}:${String(r.date_last_updated ?? r.last_modified ?? '')}` : stringAt(req.body, 'action') ?? '';
    return `${topic(req) ?? 'unknown'}:${resourceId(req) ?? ''}:${state}`;
  },
};
