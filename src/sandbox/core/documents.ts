// Brazilian documents and boletos, as the gateways validate and issue them.
import { randomDigits } from '../ids';
import { DAY_MS } from './time';

/** CPF (11) / CNPJ (14) check digits. */
export function validCpfCnpj(doc: string): boolean {
  if (!/^(\d{11}|\d{14})$/.test(doc) || /^(\d)\1+$/.test(doc)) return false;
  const digit = (base: string, weights: number[]) => {
    const r = base.split('').reduce((s, d, i) => s + Number(d) * weights[i], 0) % 11;
    return r < 2 ? 0 : 11 - r;
  };
  if (doc.length === 11) {
    const d1 = digit(doc.slice(0, 9), [10, 9, 8, 7, 6, 5, 4, 3, 2]);
    const d2 = digit(doc.slice(0, 10), [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
    return doc.endsWith(`${d1}${d2}`);
  }
  const d1 = digit(doc.slice(0, 12), [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  const d2 = digit(doc.slice(0, 13), [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  return doc.endsWith(`${d1}${d2}`);
}

/** The boleto due-date factor: days since 1997-10-07, rolled over to 1000 after 9999 (on 2025-02-22). */
export function boletoFactor(dueMs: number): string {
  const days = Math.floor((dueMs - Date.UTC(1997, 9, 7)) / DAY_MS);
  return String(days < 10_000 ? days : ((days - 10_000) % 9_000) + 1_000).padStart(4, '0');
}

/** A FEBRABAN boleto: the 44-digit barcode and its 47-digit typeable line, check digits included. */
export function febrabanBoleto(bank: string, dueMs: number, amountCents: number): { barcode: string; line: string } {
  const factor = boletoFactor(dueMs);
  const amount = String(amountCents).padStart(10, '0');
  const free = randomDigits(25);
  const body = `${bank}9${factor}${amount}${free}`;
  const dv = mod11(body);
  const barcode = `${body.slice(0, 4)}${dv}${body.slice(4)}`;
  const field = (s: string) => s + mod10(s);
  const line = field(`${bank}9${free.slice(0, 5)}`) + field(free.slice(5, 15)) + field(free.slice(15, 25)) + dv + factor + amount;
  return { barcode, line };
}

/** 23793.38128 60000.000003 ... : the typeable line grouped the way banks print it. */
export function formatBoletoLine(d: string): string {
  return `${d.slice(0, 5)}.${d.slice(5, 10)} ${d.slice(10, 15)}.${d.slice(15, 21)} ${d.slice(21, 26)}.${d.slice(26, 32)} ${d.slice(32, 33)} ${d.slice(33)}`;
}

function mod10(s: string): number {
  let sum = 0;
  for (let i = 0; i < s.length; i++) {
    const p = Number(s[s.length - 1 - i]) * (i % 2 === 0 ? 2 : 1);
    sum += p > 9 ? p - 9 : p;
  }
  return (10 - (sum % 10)) % 10;
}

function mod11(s: string): number {
  let sum = 0;
  for (let i = 0; i < s.length; i++) sum += Number(s[s.length - 1 - i]) * (2 + (i % 8));
  const dv = 11 - (sum % 11);
  return dv === 0 || dv === 10 || dv === 11 ? 1 : dv;
}
