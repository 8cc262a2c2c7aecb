import { anyEqual, headerValue, safeEqual, sha256Hex } from '../../lib/signatures';
import { invalid, UNCONFIGURED, verified, type GatewayWebhook } from '../webhook';
import { AMOUNT_UNIT_SETTING, pagbankAmountUnit } from './wire';
import { legacyNotificationCode, readLegacyTransaction } from './legacy-notifications';

// Two schemes (DESIGN.md): SPEC.md's `Authorization: Bearer <webhookSecret>`, and the real PagBank's
// `x-authenticity-token` = lowercase hex SHA-256 of `<token>-<raw body>` (shared/gateways/pagbank.md section 7), where
// <token> is the account's API token (also accepted: the webhookSecret, for operators who store it there). The API
// token is enough to verify: every account with PagBank credentials checks it, webhookSecret or not. With only the
// token stored, a notification without the header (PagBank's sandbox often sends none) is not verified, and
// RouteGate re-reads the order instead of believing it (docs/webhooks.md, "Which events move money").
// Notifications carry no event id: RouteGate dedupes on the body's hash (a retry resends the same body; a new
// status is a new body).
// A legacy notification (form-encoded notificationCode, how chargebacks arrive) is signed by nothing: it is verified
// only by reading it back at PagBank (legacy-notifications.ts), and deduped on what that read showed.
export const pagbankWebhook: GatewayWebhook = {
  verify(req, keys) {
    if (legacyNotificationCode(req)) return UNCONFIGURED;
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
  async resolve(ctx, req) {
    const code = legacyNotificationCode(req);
    return code ? readLegacyTransaction(ctx, code) : null;
  },
  eventId(req, resource) {
    const t = (resource as { legacyTransaction?: Record<string, string> } | null)?.legacyTransaction;
    return t ? `transaction:${t.code}:${t.status ?? ''}:${t.lastEventDate ?? ''}` : undefined;
  },
  bindings: (wire) => ({ amountUnit: pagbankAmountUnit(wire?.[AMOUNT_UNIT_SETTING]) }),
};
