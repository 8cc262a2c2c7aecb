type Json = Record<string, any>;
interface ErrorItem { code: string; description: string }

// split[] as Asaas checks it (asaas.md section 9; Asaas's split FAQ): each item a walletId (a UUID) with exactly
// one of fixedValue or percentualValue (or totalFixedValue for installment plans), positive, percentualValue at
// most 100; fixed and percentual items may be mixed; percentualValue is a percent of the NET value, and the
// whole split may not exceed the net value (what is left stays with the issuing account).

const WALLET = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const roundReais = (n: number) => Math.round(n * 100) / 100;

/** What each item comes to in reais (fixed, or percent of the net value). */
function shareOf(item: Json, netValue: number): number {
  if (item.fixedValue !== undefined) return Number(item.fixedValue);
  if (item.totalFixedValue !== undefined) return Number(item.totalFixedValue);
  return roundReais((netValue * Number(item.percentualValue)) / 100);
}

export function splitErrors(split: unknown, netValue: number): ErrorItem[] {
  if (split === undefined || split === null) return [];
  const fail = (description: string) => [{ code: 'invalid_split', description }];
  if (!Array.isArray(split) || split.length === 0) return fail('O campo split deve ser uma lista de recebedores.');
  const wallets = new Set<string>();
  for (const item of split as Json[]) {
    if (typeof item?.walletId !== 'string' || !WALLET.test(item.walletId)) return fail('O walletId informado é inválido.');
    if (wallets.has(item.walletId)) return fail(`O walletId ${item.walletId} foi informado mais de uma vez.`);
    wallets.add(item.walletId);
    const given = ['fixedValue', 'percentualValue', 'totalFixedValue'].filter((k) => item[k] !== undefined && item[k] !== null);
    if (given.length !== 1 || (given[0] === 'totalFixedValue' && item.fixedValue !== undefined)) {
      return fail('Informe o valor fixo (fixedValue) ou o percentual (percentualValue) do split.');
    }
    const v = item[given[0]];
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return fail(`O campo ${given[0]} do split deve ser maior que zero.`);
    if (given[0] === 'percentualValue' && v > 100) return fail('O percentual do split não pode ser maior que 100.');
    if (given[0] !== 'percentualValue' && roundReais(v) !== v) return fail(`O campo ${given[0]} do split deve ter no máximo duas casas decimais.`);
  }
  const total = roundReais((split as Json[]).reduce((sum, item) => sum + shareOf(item, netValue), 0));
  if (total > netValue) {
    return fail(`O valor total do split (R$ ${total.toFixed(2)}) excede o valor líquido da cobrança (R$ ${netValue.toFixed(2)}).`);
  }
  return [];
}

/** The split as the payment shows it: each item with its id, its value in reais and status PENDING. */
export function renderSplit(split: Json[], netValue: number, id: () => string): Json[] {
  return split.map((item) => ({
    id: id(), walletId: item.walletId,
    ...(item.fixedValue !== undefined ? { fixedValue: item.fixedValue } : {}),
    ...(item.percentualValue !== undefined ? { percentualValue: item.percentualValue } : {}),
    ...(item.totalFixedValue !== undefined ? { totalFixedValue: item.totalFixedValue } : {}),
    totalValue: shareOf(item, netValue), status: 'PENDING',
  }));
}
