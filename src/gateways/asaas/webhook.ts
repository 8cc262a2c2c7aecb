import { headerValue, safeEqual } from '../../lib/signatures';
import { invalid, stringAt, UNCONFIGURED, verified, type GatewayWebhook } from '../webhook';

// Asaas sends the authToken configured for the webhook verbatim in `asaas-access-token` (shared/gateways/asaas.md
// section 7): no HMAC. Compared in constant time with the stored webhookSecret. Events carry a stable `id` (evt_...).
export const asaasWebhook: GatewayWebhook = {
  verify(req, keys) {
    const secret = keys.credentials.webhookSecret;
    if (!secret) return UNCONFIGURED;
    const token = headerValue(req.headers, 'asaas-access-token');
    if (!token) return invalid('no asaas-access-token header');
    return safeEqual(token, secret) ? verified('asaas-access-token') : invalid('asaas-access-token does not match');
  },
  eventId: (req) => stringAt(req.body, 'id'),
};
