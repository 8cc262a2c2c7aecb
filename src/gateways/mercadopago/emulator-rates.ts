/**
 * The emulated issuers' rate tables (Mercado Pago's payer_costs): shared by the quote endpoint
 * (emulator-installments.ts) and the payments it prices (emulator-shapes.ts).
 */

export interface EmulatedIssuer { id: number; name: string; rates: readonly number[] }

/** Two emulated issuers per brand: the bin's sixth digit even picks the first, odd the second. */
export const MP_ISSUER_RATES: Readonly<Record<'even' | 'odd', EmulatedIssuer>> = {
  even: { id: 25, name: 'Banco Emulado Par', rates: [0, 0, 0, 5.99, 7.49, 8.99, 10.49, 11.99, 13.49, 14.99, 16.49, 17.99] },
  odd: { id: 24, name: 'Banco Emulado Impar', rates: [0, 0, 0, 0, 0, 0, 9.99, 11.49, 12.99, 14.49, 15.99, 17.49] },
};

export const halfUp = (num: bigint, den: bigint): bigint => (2n * num + den) / (2n * den);

/** The issuer of a card by its bin, as the quote endpoint picks it. */
export const issuerOf = (bin: string): EmulatedIssuer => MP_ISSUER_RATES[Number(bin[5]) % 2 === 1 ? 'odd' : 'even'];

/**
 * What the buyer pays for a card payment in `count` installments made from the issuer's plan (the payment names
 * issuer_id): the payer_costs row of the quote, in cents. The emulated account charges buyers the issuer's interest
 * only then; a payment without issuer_id is priced as an account whose seller absorbs it (total = the amount).
 */
export function payerCost(amountCents: number, bin: string, count: number): { total: number; each: number } {
  const rate = issuerOf(bin).rates[count - 1] ?? 0;
  const total = halfUp(BigInt(amountCents) * BigInt(10_000 + Math.round(rate * 100)), 10_000n);
  return { total: Number(total), each: Number(halfUp(total, BigInt(count))) };
}

