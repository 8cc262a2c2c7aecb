import type { NormalizedCharge } from '../gateways/types';

/** A create's body as validated: currency and capture may be left out. */
export type ChargeBody = Omit<NormalizedCharge, 'currency' | 'capture'> & Partial<Pick<NormalizedCharge, 'currency' | 'capture'>>;

/**
 * The charge a create asks for, from its body (normalized, or translated from a native one): the currency upper-cased
 * (BRL when left out), capture true when left out, and the client's IP.
 *
 * The body is spread last and the three are then set: Node 20's V8 gives an object made by a leading spread a hidden
 * class of its own and makes a new one for each key added after it. The charge reaches every part of a create, so
 * each part's property reads would see a new class per request (docs/performance.md, eighteenth round).
 */
export function chargeFromBody(body: ChargeBody, clientIp: string): NormalizedCharge {
  const charge: NormalizedCharge = { currency: 'BRL', capture: true, clientIp, ...body };
  charge.currency = (body.currency ?? 'BRL').toUpperCase();
  charge.capture = body.capture ?? true;
  charge.clientIp = clientIp;
  return charge;
}
