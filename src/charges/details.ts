import type { ChargeRecord } from '../store/charges';
import type { NormalizedChargeResult } from '../gateways/types';

/** The normalized fields beyond SPEC.md's table that every gateway fills (issue 9): kept when a later read lacks them. */
export function applyDetails(c: ChargeRecord, n: NormalizedChargeResult): void {
  c.boletoBarcodeNumber = n.boletoBarcodeNumber ?? c.boletoBarcodeNumber ?? null;
  c.pixExpiresAt = n.pix?.expiresAt ?? c.pixExpiresAt ?? null;
  c.boletoDueDate = n.boleto?.dueDate ?? c.boletoDueDate ?? null;
  c.card = n.card ?? c.card ?? null;
}
