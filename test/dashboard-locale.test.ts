import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatDate, formatMoney, parseReais } from '../src/dashboard/locale';
import { RouteGateError } from '../src/errors';

// What the dashboard shows a Brazilian merchant and reads back from them (src/dashboard/locale.ts).

const plain = (s: string) => s.replace(/\u00a0/g, ' ');

test('amounts in cents show as R$ with a decimal comma and dots between thousands', () => {
  assert.equal(plain(formatMoney(15990, 'BRL')), 'R$ 159,90');
  assert.equal(plain(formatMoney(1, 'BRL')), 'R$ 0,01');
  assert.equal(plain(formatMoney(123456789, 'BRL')), 'R$ 1.234.567,89');
  assert.equal(plain(formatMoney(2500, 'USD')), 'US$ 25,00');
});

test("times show on São Paulo's clock, not UTC", () => {
  assert.equal(plain(formatDate('2026-12-02T00:36:07.000Z')), '01/12/2026, 21:36:07 BRT');
  assert.equal(plain(formatDate('2026-12-02T00:36:07.000Z', 'UTC')), '02/12/2026, 00:36:07 UTC');
  assert.equal(formatDate(null), '');
});

test('amounts typed in reais become integer cents exactly, with no float on the way', () => {
  const cases: Array<[string, number | undefined]> = [
    ['50,00', 5000], ['50', 5000], ['50,5', 5050], ['0,01', 1], ['19,99', 1999], ['0,29', 29], ['1,10', 110],
    ['1.234,56', 123456], [' R$ 159,90 ', 15990], ['R$\u00a01.000', 100000], ['', undefined], ['  ', undefined],
  ];
  for (const [typed, cents] of cases) assert.equal(parseReais(typed), cents, typed);
  // Every cent from 0,01 to 999,99 round-trips through what the merchant would type.
  for (let c = 1; c < 100_000; c++) assert.equal(parseReais(`${Math.floor(c / 100)},${String(c % 100).padStart(2, '0')}`), c);
});

test('anything else is refused next to the amount field, never guessed', () => {
  for (const typed of ['50.00', '0,00', '0', '-5,00', '5,001', '1,234.56', '12.34', 'abc', '1.23,45', '50,', ',50', '9'.repeat(20)]) {
    assert.throws(() => parseReais(typed), (err: unknown) => err instanceof RouteGateError && err.details?.errors?.[0]?.field === 'amount', typed);
  }
});
