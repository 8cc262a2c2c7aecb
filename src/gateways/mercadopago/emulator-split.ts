import { badRequest } from './emulator-shapes';

/**
 * Marketplace fee (mercadopago.md section 9): only on a payment made with a seller's OAuth token, which this
 * emulator never issues, so a valid fee still ends in 2059; RouteGate never sends one (it cannot split here).
 */
export function applicationFeeRefusal(fee: unknown, amount: number): ReturnType<typeof badRequest> | undefined {
  if (fee === undefined || fee === null) return undefined;
  if (typeof fee !== 'number' || !Number.isFinite(fee) || fee < 0) return badRequest(4039, 'application_fee must be a positive number');
  if (fee > amount) return badRequest(4038, 'application_fee cannot be bigger than transaction_amount');
  return badRequest(2059, 'Application fee is only allowed with an access token obtained through OAuth (marketplace)');
}
