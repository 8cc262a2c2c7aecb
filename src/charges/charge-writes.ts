import type { AttemptRecord, ChargePatch, ChargeRecord } from '../store/charges';
import { GatewayFailure, type NormalizedChargeResult } from '../gateways/types';
import { toPublicError } from './outcomes';
import { disputePatch, type DisputeFact } from './disputes';

/**
 * The columns a gateway answer changes, from what the gateway said. Built while the charge's lock is held, so
 * `current` (read under the lock) is what the row holds; amounts are the gateway's figures, never sums of ours.
 */
export function patchFromGateway(current: Pick<ChargeRecord, 'refs' | 'status' | 'amount' | 'paidAmount' | 'dispute'>, n: NormalizedChargeResult): ChargePatch {
  const patch: ChargePatch = { status: n.status, declineCode: n.declineCode ?? null, ...disputeFromGateway(current, n) };
  if (n.externalId) patch.externalId = n.externalId;
  if (Number.isInteger(n.amount)) patch.amount = n.amount;
  if (Number.isInteger(n.paidAmount)) patch.paidAmount = n.paidAmount;
  if (Number.isInteger(n.refundedAmount)) patch.refundedAmount = n.refundedAmount;
  if (n.currency) patch.currency = n.currency;
  if (typeof n.captured === 'boolean') patch.captured = n.captured;
  if (n.pixQrCode) patch.pixQrCode = n.pixQrCode;
  if (n.pixCopyPaste) patch.pixCopyPaste = n.pixCopyPaste;
  if (n.boletoUrl) patch.boletoUrl = n.boletoUrl;
  if (n.boletoBarcode) patch.boletoBarcode = n.boletoBarcode;
  if (n.refs) patch.refs = { ...(current.refs ?? {}), ...n.refs };
  // Fields beyond SPEC.md's table (issue 9): kept when a later read lacks them.
  if (n.boletoBarcodeNumber) patch.boletoBarcodeNumber = n.boletoBarcodeNumber;
  if (n.pix?.expiresAt) patch.pixExpiresAt = n.pix.expiresAt;
  if (n.boleto?.dueDate) patch.boletoDueDate = n.boleto.dueDate;
  // A hybrid boleto's pix is held in the charge's pix columns (a charge has one pix QR code, whatever its method).
  if (n.boleto?.pixCopyPaste) patch.pixCopyPaste = n.boleto.pixCopyPaste;
  if (n.boleto?.pixQrCode) patch.pixQrCode = n.boleto.pixQrCode;
  if (n.card) patch.card = n.card;
  return patch;
}

/**
 * What the gateway's answer says of a chargeback (docs/charges.md, "Disputes"): `disputed` opens one, `charged_back`
 * loses it, `dispute.status` won (where the mapping reads one) wins it. An answer that tells nothing of a chargeback
 * (a gateway whose payment does not show its disputes) leaves a disputed or charged-back charge's status as it is,
 * and a settled dispute stays settled: a later answer still showing the chargeback keeps the charge's status.
 */
function disputeFromGateway(current: Pick<ChargeRecord, 'status' | 'amount' | 'paidAmount' | 'dispute'>, n: NormalizedChargeResult): ChargePatch {
  const told = { amount: n.dispute?.amount, reason: n.dispute?.reason };
  let fact: DisputeFact | undefined;
  if (n.status === 'disputed') fact = { status: 'open', ...told };
  else if (n.status === 'charged_back') fact = { status: 'lost', ...told };
  else if (n.dispute?.status === 'won') fact = { status: 'won', ...told };
  const held = current.status === 'disputed' || current.status === 'charged_back';
  if (!fact) return held ? { status: current.status } : {};
  if (current.dispute && current.dispute.status !== 'open') return held || fact.status !== 'won' ? { status: current.status } : {};
  return { status: n.status, ...disputePatch(current, fact, new Date().toISOString()) };
}

/** How a failed gateway call is recorded on its attempt row. */
export function failureAttempt(base: Pick<AttemptRecord, 'seq' | 'operation' | 'gateway'>, err: unknown, started: number, outcome?: AttemptRecord['outcome']): AttemptRecord {
  const publicError = toPublicError(err, base.gateway);
  const f = err instanceof GatewayFailure ? err : undefined;
  return {
    ...base, outcome: outcome ?? (f?.kind === 'decline' ? 'decline' : 'failed'), errorCode: publicError.code, failureKind: f?.kind ?? 'internal',
    gatewayStatus: f?.info.status ?? null, message: publicError.message.slice(0, 500), ambiguous: f?.info.ambiguous ?? false,
    durationMs: performance.now() - started,
  };
}
