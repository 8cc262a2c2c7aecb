import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validTaxId } from '../src/http/schemas';

test('CPF and CNPJ check digits are verified, with only the two @brazilian-utils functions loaded (not its 16 MB bundle)', () => {
  for (const valid of ['12345678909', '52998224725', '11222333000181']) assert.equal(validTaxId(valid), true, valid);
  for (const invalid of ['12345678900', '11111111111', '11222333000180', '00000000000000']) assert.equal(validTaxId(invalid), false, invalid);
  assert.equal(validTaxId('123'), true, 'a wrong length is the pattern\'s error to report');
  const loaded = Object.keys(require.cache).filter((f) => f.includes('@brazilian-utils'));
  assert.ok(loaded.length > 0);
  assert.deepEqual(loaded.filter((f) => f.endsWith('brazilian-utils.umd.cjs') || f.endsWith('brazilian-utils.js')), []);
});
