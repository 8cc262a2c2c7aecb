import type { FastifyInstance } from 'fastify';
import {
  HOUR_MS, MINUTE_MS, isoNow as now, randomDigits, type DisputeOutcome, type Disputer, type EmulatorCore,
} from '../../sandbox/core';
import { conflictStatus, notFound, type StoredCharge, type StoredOrder } from './emulator-shapes';

// PagBank chargebacks (docs/webhooks.md, "PagBank chargebacks"): the Orders API shows none (the charge stays PAID at
// GET /charges/{id}); they reach the seller only as the legacy notification, a form-encoded POST
// `notificationCode=<code>&notificationType=transaction`, read back at GET /v3/transactions/notifications/{code}
// ?email=..&token=.. as an XML <transaction>. Legacy statuses: 3 Paga, 4 Disponível, 5 Em disputa (the buyer's
// dispute at PagBank), 8 Debitado (the money went back to the buyer: lost), 9 Retenção temporária (the buyer asked the
// card's issuer for a chargeback). A card chargeback, what /__control/dispute plays, opens as 9; won, the transaction
// shows Disponível (4) again. The legacy
// transaction code is the charge id's UUID (the charge id without CHAR_). Each status change is a new notification
// with a new code; every code keeps answering the transaction as it is now.

/** Retries are not published; the same schedule as the Orders API notifications. */
const CONVENTION = { retries: [MINUTE_MS, 5 * MINUTE_MS, 15 * MINUTE_MS, HOUR_MS, 6 * HOUR_MS], timeoutMs: 30_000 };

export const LEGACY_STATUS = { PAID: 3, AVAILABLE: 4, IN_DISPUTE: 5, DEBITED: 8, CHARGEBACK_HOLD: 9 } as const;

interface LegacyState { status: number; lastEventDate: string }

export interface LegacyViews {
  charge(id: string): StoredCharge | undefined;
  order(id: string): StoredOrder | undefined;
}

/** The legacy read route and the Disputer of /__control/dispute; `authorized` checks the email+token query. */
export function pagbankDisputes(app: FastifyInstance, core: EmulatorCore, views: LegacyViews): Disputer {
  const { legacy, codes } = core.state({
    legacy: new Map<string, LegacyState>(), // charge id -> its legacy transaction status, once disputed
    codes: new Map<string, string>(), // notification code -> charge id
  });

  const webhooks = core.webhooks<number>({
    convention: CONVENTION,
    snapshot: (id) => legacy.get(id)?.status,
    urls: (id) => views.order(views.charge(id)?.orderId ?? '')?.notification_urls ?? [],
    events({ id, after }) {
      const code = notificationCode();
      codes.set(code, id);
      const body = new URLSearchParams({ notificationCode: code, notificationType: 'transaction' }).toString();
      return [{
        event: `transaction ${after}`,
        resource: id,
        render: () => ({ headers: { 'content-type': 'application/x-www-form-urlencoded; charset=ISO-8859-1' }, body }),
      }];
    },
  });

  app.get<{ Params: { code: string }; Querystring: { email?: string; token?: string } }>('/v3/transactions/notifications/:code', async (request, reply) => {
    const { email, token } = request.query;
    // The legacy API authenticates with the account's email and token in the query string, never a header.
    if (!email || !token || token.includes('invalid')) return reply.code(401).type('text/plain').send('Unauthorized');
    const chargeId = codes.get(request.params.code);
    const charge = chargeId ? views.charge(chargeId) : undefined;
    const state = chargeId ? legacy.get(chargeId) : undefined;
    if (!charge || !state) return reply.code(404).type('application/xml').send(legacyError('13001', 'invalid notification code'));
    const order = views.order(charge.orderId);
    return reply.type('application/xml; charset=ISO-8859-1').send(transactionXml(charge, order, state));
  });

  const set = (charge: StoredCharge, status: number): DisputeOutcome => {
    legacy.set(charge.id, { status, lastEventDate: now() });
    webhooks.changed(charge.id);
    return { ok: true, dispute: { code: legacyCode(charge.id), status, reference: charge.reference_id ?? null } };
  };

  return {
    open(id) {
      const charge = views.charge(id);
      if (!charge) return { ok: false, status: 404, body: notFound('charge_id') };
      const type = String(charge.payment_method.type ?? '');
      if (charge.status !== 'PAID' || !['CREDIT_CARD', 'DEBIT_CARD'].includes(type) || legacy.has(id)) {
        const refused = conflictStatus(charge, 'PAID');
        return { ok: false, status: refused.status, body: refused.body };
      }
      return set(charge, LEGACY_STATUS.CHARGEBACK_HOLD);
    },
    close(id, outcome) {
      const charge = views.charge(id);
      if (!charge) return { ok: false, status: 404, body: notFound('charge_id') };
      const held = legacy.get(id)?.status;
      if (held !== LEGACY_STATUS.CHARGEBACK_HOLD && held !== LEGACY_STATUS.IN_DISPUTE) {
        return { ok: false, status: 409, body: legacyError('53000', `transaction ${legacyCode(id)} is not in dispute`) };
      }
      return set(charge, outcome === 'won' ? LEGACY_STATUS.AVAILABLE : LEGACY_STATUS.DEBITED);
    },
  };
}

/** The legacy code of a charge: its UUID, upper case. */
export function legacyCode(chargeId: string): string {
  return chargeId.replace(/^CHAR_/, '').toUpperCase();
}

/** Real codes look like 766B9C-AD4B044B04DA-77742F5FA653-E1AB24. */
function notificationCode(): string {
  const hex = (n: number) => Array.from({ length: n }, () => '0123456789ABCDEF'[Number(randomDigits(2)) % 16]).join('');
  return `${hex(6)}-${hex(12)}-${hex(12)}-${hex(6)}`;
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const reais = (cents: number) => (cents / 100).toFixed(2);

function transactionXml(charge: StoredCharge, order: StoredOrder | undefined, state: LegacyState): string {
  const reference = charge.reference_id ?? order?.reference_id ?? '';
  const method = charge.payment_method.type === 'DEBIT_CARD' ? 8 : 1; // 1 cartão de crédito, 8 cartão de débito
  const fee = Math.round(charge.total * 0.0399) + 40;
  return '<?xml version="1.0" encoding="ISO-8859-1" standalone="yes"?>'
    + '<transaction>'
    + `<date>${charge.paid_at ?? charge.created_at}</date>`
    + `<code>${legacyCode(charge.id)}</code>`
    + `<reference>${escapeXml(reference)}</reference>`
    + '<type>1</type>'
    + `<status>${state.status}</status>`
    + `<lastEventDate>${state.lastEventDate}</lastEventDate>`
    + `<paymentMethod><type>${method}</type><code>101</code></paymentMethod>`
    + `<grossAmount>${reais(charge.total)}</grossAmount>`
    + '<discountAmount>0.00</discountAmount>'
    + `<feeAmount>${reais(fee)}</feeAmount>`
    + `<netAmount>${reais(charge.total - fee)}</netAmount>`
    + '<extraAmount>0.00</extraAmount>'
    + `<installmentCount>${Number(charge.payment_method.installments ?? 1)}</installmentCount>`
    + '<itemCount>1</itemCount>'
    + `<items><item><id>1</id><description>${escapeXml(charge.description ?? 'Pedido')}</description><quantity>1</quantity><amount>${reais(charge.total)}</amount></item></items>`
    + '</transaction>';
}

function legacyError(code: string, message: string): string {
  return `<?xml version="1.0" encoding="ISO-8859-1" standalone="yes"?><errors><error><code>${code}</code><message>${escapeXml(message)}</message></error></errors>`;
}
