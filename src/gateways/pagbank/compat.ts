import { rgError } from '../../errors';
import type { CompatCharge, CompatSurface, NativeRequest } from '../../compat/types';
import { AMOUNT_UNIT_SETTING, pagbankAmountUnit } from './wire';
import { PASSTHROUGH } from './passthrough';

// PagBank's Orders API served by RouteGate (compatibility mode; docs/compatibility.md): pagbank.md sections 2 and
// 3, JSON as PagBank's clients send it. Orders paths answer the order, charge paths the bare charge (capture and
// cancel with 201, as PagBank does). Everything else under /orders and /charges (GET /orders/{id}/splits,
// /charges/{id}/costs, ...) is passed through to PagBank with the account's own token. The Orders API has no
// customer resource (section 4): the buyer goes inline on each order, so no customer paths are served.

const obj = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The charge object of a native answer. `native` is an order (native.response's output, or PagBank's GET /orders
 * body) or, right after a capture or cancel PagBank processed, the bare charge PagBank answered.
 */
function chargeOf(charge: CompatCharge): Record<string, unknown> {
  const native = obj(charge.native);
  if (native.payment_method) return native;
  const first = Array.isArray(native.charges) ? obj(native.charges[0]) : {};
  // A pix nobody paid has no charge yet (PagBank adds one on payment): GET /charges/{id} is then a 404, as at PagBank.
  if (!first.id) throw rgError('CHARGE_NOT_FOUND', { id: String(charge.view.id) });
  return first;
}

/** Charge paths answer the charge (retrieve 200; capture and cancel 201, as PagBank does); order paths the order. */
function chargeAnswer(charge: CompatCharge, request: NativeRequest) {
  if (!request.path.startsWith('/charges')) return { body: charge.native };
  return { status: request.method === 'GET' ? 200 : 201, body: chargeOf(charge) };
}

export const pagbankCompat: CompatSurface = {
  routes: [
    { method: 'POST', path: '/orders', operation: 'create' },
    { method: 'GET', path: '/orders', operation: 'list' },
    { method: 'GET', path: '/orders/:id', operation: 'retrieve', id: ['param:id'] },
    { method: 'GET', path: '/charges/:id', operation: 'retrieve', id: ['param:id'] },
    { method: 'POST', path: '/charges/:id/capture', operation: 'capture', id: ['param:id'], amount: ['body:amount.value'] },
    // One PagBank route voids a pre-authorization, cancels a waiting boleto and refunds (all or part of) a paid
    // charge; which one is decided by the charge's state, as Pagar.me's DELETE /charges/{id} (cancelOrRefund).
    { method: 'POST', path: '/charges/:id/cancel', operation: 'cancelOrRefund', id: ['param:id'], amount: ['body:amount.value'] },
  ],
  prefixes: ['/orders', '/charges'],
  createStatus: 201,
  // Integer cents on the real Orders API; reais in SPEC.md's profile (ROUTEGATE_PAGBANK_AMOUNT_UNIT=reais), like the adapter.
  amountUnit: (wire) => pagbankAmountUnit(wire[AMOUNT_UNIT_SETTING]),
  bindings: (wire) => ({ amountUnit: pagbankAmountUnit(wire[AMOUNT_UNIT_SETTING]) }),
  // pagbank.md section 1: the official plugin sends x-idempotency-key on create-order and refund.
  idempotencyHeader: 'x-idempotency-key',
  passthrough: PASSTHROUGH,
  passthroughHeaders: (credentials) => ({ authorization: `Bearer ${credentials.token ?? ''}` }),
  answers: {
    charge: (charge, request) => chargeAnswer(charge, request),
    // A refund is POST /charges/{id}/cancel: PagBank answers it with the charge (201), amount.summary.refunded grown.
    refund: (charge) => ({ status: 201, body: chargeOf(charge) }),
    // PagBank documents no order listing (pagbank.md section 3 marks it unconfirmed): RouteGate answers a page of
    // orders, newest first, in PagBank's naming.
    list: (items, hasMore) => ({ body: { orders: items.map((i) => i.native), has_more: hasMore } }),
    // No customer routes are listed, so these are never reached; they say why if a route is ever added by mistake.
    customerInput: () => {
      throw rgError('CUSTOMERS_UNSUPPORTED', { gateway: 'pagbank' });
    },
    customer: () => {
      throw rgError('CUSTOMERS_UNSUPPORTED', { gateway: 'pagbank' });
    },
  },
  listQuery: (request) => ({
    limit: /^\d+$/.test(String(request.query.limit ?? '')) ? Number(request.query.limit) : undefined,
    after: str(request.query.after),
  }),
};
