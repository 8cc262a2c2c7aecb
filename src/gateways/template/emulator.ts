import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  bearerToken, cardBrand, declineFor, defineEmulator, luhnValid, pixBrCode, randomId, requestFingerprint, type Json, type LedgerEntry, type Outcome,
} from '../../sandbox/core';

// Template emulator: the made-up API the adapter beside it calls (Bearer auth, integer cents, Idempotency-Key
// replay, declines as 201 payments). Replace its routes and shapes with the real gateway's, following
// shared/gateways/<id>.md. Faults, the request log and resets come from the shared emulator app
// (src/sandbox/emulators.ts); the shared core (src/sandbox/core) keeps the state, the idempotency replay, the
// auth check, the ledger and the payer, so this file holds only the gateway's routes and shapes.

interface Payment {
  id: string;
  reference: string | null;
  method: 'card' | 'pix';
  status: 'authorized' | 'paid' | 'pending' | 'declined' | 'canceled' | 'refunded';
  amount: number;
  amount_paid: number;
  amount_refunded: number;
  currency: string;
  description?: string;
  card?: Json;
  pix?: Json;
  decline?: { code: string; message: string };
  refunds: Array<{ id: string; amount: number; status: 'succeeded'; created_at: string }>;
  created_at: string;
}

const now = () => new Date().toISOString();
const error = (message: string) => ({ error: { message } });

export const templateEmulator = defineEmulator((app, core) => {
  const { payments } = core.state({ payments: new Map<string, Payment>() });
  core.ledger(() => [...payments.values()].map((p): Omit<LedgerEntry, 'gateway'> => ({
    id: p.id, reference: p.reference, paymentMethod: p.method === 'pix' ? 'pix' : 'credit_card', status: p.status,
    amount: p.amount, paidAmount: p.amount_paid, refundedAmount: p.amount_refunded, refunds: p.refunds.length,
  })));
  // The payer pays a pending pix.
  core.payer((id) => {
    const p = payments.get(id);
    if (!p) return { ok: false, status: 404, message: `payment ${id} not found` };
    if (p.status !== 'pending') return { ok: false, status: 409, message: `${id} is ${p.status}, not a pix awaiting the payer` };
    Object.assign(p, { status: 'paid', amount_paid: p.amount });
    return { ok: true };
  });

  core.authenticate((request) => {
    const token = bearerToken(request.headers.authorization);
    return token && !token.includes('invalid') ? undefined : { status: 401, body: error('invalid API key') };
  });

  // Writes answer a repeated Idempotency-Key with the first answer; another body under the same key is a 409.
  const idempotency = core.idempotency<string>({
    header: 'idempotency-key',
    slot: (_request, key) => key,
    fingerprint: requestFingerprint,
    conflict: (first, now) => (first === now ? undefined : { status: 409, body: error('Idempotency-Key reused with another request') }),
    stores: (status) => status < 500,
  });
  const idempotently = (request: FastifyRequest, reply: FastifyReply, run: () => Outcome) => idempotency.run(request, reply, run);

  const found = (id: string, act: (p: Payment) => Outcome) => {
    const p = payments.get(id);
    return p ? act(p) : { status: 404, body: error(`payment ${id} not found`) };
  };

  app.post('/v1/payments', (request, reply) => idempotently(request, reply, () => create((request.body ?? {}) as Json)));

  app.get<{ Params: { id: string } }>('/v1/payments/:id', async (request, reply) => {
    const p = payments.get(request.params.id);
    return p ?? reply.code(404).send(error(`payment ${request.params.id} not found`));
  });

  app.post<{ Params: { id: string } }>('/v1/payments/:id/capture', (request, reply) => idempotently(request, reply, () => found(request.params.id, (p) => {
    if (p.status !== 'authorized') return { status: 409, body: error(`payment is ${p.status}, not authorized`) };
    const amount = (request.body as Json | undefined)?.amount ?? p.amount;
    if (!Number.isInteger(amount) || amount < 1 || amount > p.amount) return { status: 400, body: error('amount must be integer cents up to the authorized amount') };
    Object.assign(p, { status: 'paid', amount_paid: amount });
    return { status: 200, body: p };
  })));

  app.post<{ Params: { id: string } }>('/v1/payments/:id/cancel', (request, reply) => idempotently(request, reply, () => found(request.params.id, (p) => {
    if (p.status !== 'authorized' && p.status !== 'pending') return { status: 409, body: error(`payment is ${p.status}: only authorized or pending payments can be cancelled`) };
    p.status = 'canceled';
    return { status: 200, body: p };
  })));

  app.post<{ Params: { id: string } }>('/v1/payments/:id/refunds', (request, reply) => idempotently(request, reply, () => found(request.params.id, (p) => {
    if (p.status !== 'paid') return { status: 409, body: error(`payment is ${p.status}: only paid payments can be refunded`) };
    const remaining = p.amount_paid - p.amount_refunded;
    const amount = (request.body as Json | undefined)?.amount ?? remaining;
    if (!Number.isInteger(amount) || amount < 1 || amount > remaining) return { status: 400, body: error(`amount must be integer cents up to ${remaining}`) };
    p.refunds.push({ id: randomId('re_', 16), amount, status: 'succeeded', created_at: now() });
    p.amount_refunded += amount;
    if (p.amount_refunded === p.amount_paid) p.status = 'refunded';
    return { status: 201, body: p };
  })));

  function create(body: Json): Outcome {
    if (!Number.isInteger(body.amount) || body.amount < 1) return { status: 400, body: error('amount must be a positive integer (cents)') };
    if (body.method !== 'card' && body.method !== 'pix') return { status: 400, body: error('method must be card or pix') };
    const p: Payment = {
      id: randomId('pay_', 16), reference: body.reference ?? null, method: body.method, status: 'pending', amount: body.amount, amount_paid: 0,
      amount_refunded: 0, currency: String(body.currency ?? 'BRL').toUpperCase(), description: body.description, refunds: [], created_at: now(),
    };
    if (body.method === 'pix') {
      if (!body.payer?.document) return { status: 400, body: error('payer.document is required for pix') };
      const expiresIn = Number(body.pix?.expires_in ?? 3600);
      const emv = pixBrCode({ location: `pix.template.example/qr/${randomId('', 32)}`, amountReais: p.amount / 100, merchantName: 'TEMPLATE SANDBOX', city: 'SAO PAULO' });
      p.pix = { qr_code: emv, qr_code_url: `https://api.template.example/v1/payments/${p.id}/qr.png`, expires_at: new Date(Date.now() + expiresIn * 1000).toISOString() };
    } else {
      const card = body.card ?? {};
      if (typeof card.number !== 'string' || !luhnValid(card.number)) return { status: 400, body: error('card.number is not a valid card number') };
      const number = card.number.replace(/\D+/g, '');
      p.card = { brand: cardBrand(number), last4: number.slice(-4), exp_month: card.exp_month, exp_year: card.exp_year };
      const decline = declineFor(number);
      if (decline) {
        p.status = 'declined';
        p.decline = { code: decline.code, message: decline.message };
      } else if (body.capture === false) p.status = 'authorized';
      else Object.assign(p, { status: 'paid', amount_paid: p.amount });
    }
    payments.set(p.id, p);
    return { status: 201, body: p };
  }
});
