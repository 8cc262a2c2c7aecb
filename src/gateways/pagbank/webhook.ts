import { anyEqual, headerValue, safeEqual, sha256Hex } from '../../lib/signatures';
import { invalid, UNCONFIGURED, verified, type GatewayWebhook } from '../webhook';
import { AMOUNT_UNIT_SETTING, pagbankAmountUnit } from './wire';

// Two schemes (DESIGN.md): SPEC.md's `Authorization: Bearer <webhookSecret>`, and the real PagBank's
// `x-authenticity-token` = lowercase hex SHA-256 of `<token>-<raw body>` (shared/gateways/pagbank.md section 7), where
// <token> is the account's API token (also accepted: the webhookSecret, for operators who store it there). The API
// token is enough to verify: every account with PagBank credentials checks it, webhookSecret or not. With only the
// token stored, a notification without the header (PagBank's sandbox often sends none) is not verified, and
// RouteGate re-reads the order instead of believing it (docs/webhooks.md, "Which events move money").
// Notifications carry no event id: RouteGate dedupes on the body's hash (a retry resends the same body; a new
// status is a new body).
export const pagbankWebhook: GatewayWebhook = {
  verify(req, keys) {
    const secret = keys.credentials.webhookSecret;
    const apiToken = keys.credentials.token;
    if (!secret && !apiToken) return UNCONFIGURED;
    const authenticity = headerValue(req.headers, 'x-authenticity-token');
    const bearer = /^Bearer\s+(.+)$/i.exec(headerValue(req.headers, 'authorization') ?? '')?.[1];
    if (authenticity) {
      const tokens = [apiToken, secret].filter((t): t is string => Boolean(t));
      const expected = tokens.map((t) => sha256Hex(`${t}-`, req.rawBody));
      const ok = expected.map((e) => anyEqual([authenticity.toLowerCase()], e)).some(Boolean);
      return ok ? verified('x-authenticity-token') : invalid('x-authenticity-token does not match the body');
    }
    if (bearer && secret) return safeEqual(bearer, secret) ? verified('bearer') : invalid('the bearer token does not match');
    if (bearer) return invalid('an Authorization: Bearer token needs a stored webhookSecret to check it against');
    if (!secret) return UNCONFIGURED;
    return invalid('no x-authenticity-token or Authorization: Bearer header');
  },
  eventId: () => undefined,
  bindings: (wire) => ({ amountUnit: pagbankAmountUnit(wire?.[AMOUNT_UNIT_SETTING]) }),
};
