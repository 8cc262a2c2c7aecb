import type { ChargeRecord } from '../store/charges';
import type { RefundResult } from '../gateways/types';
import { publicDispute } from './disputes';

export type ResponseFormat = 'full' | 'normalized' | 'raw';

/** The normalized charge (SPEC.md "Charge (normalized response)"): pix fields for pix, boleto fields for boleto. */
export function chargeView(c: ChargeRecord): Record<string, unknown> {
  const v: Record<string, unknown> = {
    id: c.id,
    externalId: c.externalId,
    gateway: c.gateway,
    status: c.status,
    paymentMethod: c.paymentMethod,
    amount: c.amount,
    paidAmount: c.paidAmount,
    refundedAmount: c.refundedAmount,
    currency: c.currency,
  };
  if (c.captured !== null) v.captured = c.captured;
  if (c.description) v.description = c.description;
  if (c.customerId) v.customerId = c.customerId;
  if (c.paymentMethod === 'pix') {
    if (c.pixQrCode) v.pixQrCode = c.pixQrCode;
    if (c.pixCopyPaste) v.pixCopyPaste = c.pixCopyPaste;
    if (c.pixExpiresAt) v.pix = { expiresAt: c.pixExpiresAt };
  }
  if (c.paymentMethod === 'boleto') {
    if (c.boletoUrl) v.boletoUrl = c.boletoUrl;
    if (c.boletoBarcode) v.boletoBarcode = c.boletoBarcode;
    if (c.boletoBarcodeNumber) v.boletoBarcodeNumber = c.boletoBarcodeNumber;
    const boleto: Record<string, string> = {};
    if (c.boletoDueDate) boleto.dueDate = c.boletoDueDate;
    // A hybrid boleto (SPEC.md leaves it out; docs/api.md): the pix the gateway offers beside the typeable line.
    if (c.pixCopyPaste) boleto.pixCopyPaste = c.pixCopyPaste;
    if (c.pixQrCode) boleto.pixQrCode = c.pixQrCode;
    if (Object.keys(boleto).length > 0) v.boleto = boleto;
  }
  if (c.card && (c.paymentMethod === 'credit_card' || c.paymentMethod === 'debit_card')) v.card = c.card;
  if (c.metadata) v.metadata = c.metadata;
  // The split as applied on the charge's gateway: its recipient ids, amounts in cents.
  if (c.split) v.split = c.split;
  // A card charge in installments: the plan it was charged with (amount is its totalAmount).
  if (c.installments) v.installments = c.installments;
  if (c.declineCode) v.declineCode = c.declineCode;
  // A chargeback, never a refund: refundedAmount above is only what was refunded (docs/charges.md, "Disputes").
  if (c.dispute) v.dispute = publicDispute(c.dispute);
  if (c.fallbackUsed) {
    v.gatewayFallbackUsed = true;
    v.primaryGateway = c.primaryGateway;
  }
  v.createdAt = c.createdAt;
  v.updatedAt = c.updatedAt;
  return v;
}

/**
 * DESIGN.md: `full` = normalized fields plus `gatewayResponse` (the gateway's body); `normalized` = normalized
 * fields only; `raw` = the gateway body as received. Reads of stored charges have no gateway body: `full` and
 * `raw` then answer the normalized view.
 */
export function shapeCharge(format: ResponseFormat, c: ChargeRecord, raw?: unknown, refund?: RefundResult): unknown {
  if (format === 'raw' && raw !== undefined) return raw;
  const view = chargeView(c);
  if (refund) view.refund = refund;
  if (format === 'full' && raw !== undefined) view.gatewayResponse = raw;
  return view;
}

/** X-RG-* headers; X-RG-Charge-Id only when a charge exists (an error before any charge has none to name). */
export function rgHeaders(c: Pick<ChargeRecord, 'id' | 'gateway' | 'fallbackUsed'> | undefined, gateway?: string | null): Record<string, string> {
  const headers: Record<string, string> = {
    'x-rg-gateway': c?.gateway ?? gateway ?? 'none',
    'x-rg-fallback-used': c?.fallbackUsed ? 'true' : 'false',
  };
  if (c?.id) headers['x-rg-charge-id'] = c.id;
  return headers;
}
