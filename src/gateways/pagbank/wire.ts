/**
 * THE PagBank amount-unit binding. The real Orders API takes integer cents (shared/gateways/pagbank.md
 * section 1); SPEC.md's mapping table says reais. ROUTEGATE_PAGBANK_AMOUNT_UNIT (`cents` default, `reais` =
 * SPEC.md's profile) reaches the adapter through ctx.wire and the emulator through its options, and every
 * pagbank mapping converts through the `$amountUnit` bound from here.
 */
export const AMOUNT_UNIT_SETTING = 'ROUTEGATE_PAGBANK_AMOUNT_UNIT';

const UNITS = new Map<string, 'minor' | 'major'>([['cents', 'minor'], ['reais', 'major']]);

export function pagbankAmountUnit(setting: string = 'cents'): 'minor' | 'major' {
  const unit = UNITS.get(setting);
  if (!unit) throw new Error(`${AMOUNT_UNIT_SETTING} must be cents or reais, got "${setting}"`);
  return unit;
}
