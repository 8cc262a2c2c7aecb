import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fromUnit, toMajor, toMinor, toUnit } from '../src/mapping/functions';

// Item 7 of issue 9: cents <-> a gateway's unit in one place (src/mapping/functions.ts), without float drift.
// Every mapping converts only through these ($toMinor/$toMajor/$toUnit/$fromUnit).

const MAX_CENTS = 99_999_999_999; // far above any charge (R$ 999.999.999,99)

test('the named cases: 1999 -> 19.99 -> 1999, 1 cent, R$ 1.000.000,00, 10.99 (1098.9999999999998 in floats)', () => {
  assert.equal(toMajor(1999), 19.99);
  assert.equal(toMinor(19.99), 1999);
  assert.equal(toMajor(1), 0.01);
  assert.equal(toMinor(0.01), 1);
  assert.equal(toMajor(100_000_000), 1_000_000);
  assert.equal(toMinor(1_000_000), 100_000_000);
  assert.equal(toMinor(10.99), 1099);
  assert.equal(toMinor('19.99'), 1999, 'numeric strings, as some gateways send them');
  assert.equal(toMajor(undefined), undefined);
  assert.equal(toMinor('abc'), undefined);
});

test('property: cents -> reais -> cents is the identity', () => {
  fc.assert(fc.property(fc.integer({ min: 0, max: MAX_CENTS }), (cents) => toMinor(toMajor(cents)) === cents), { numRuns: 2000 });
});

test('property: reais carry at most two decimals and print as the decimal text of the cents', () => {
  fc.assert(fc.property(fc.integer({ min: 0, max: MAX_CENTS }), (cents) => {
    const reais = toMajor(cents)!;
    const text = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
    return reais === Number(text) && /^\d+(\.\d{1,2})?$/.test(JSON.stringify(reais));
  }), { numRuns: 2000 });
});

test('property: a two-decimal reais value, as a gateway sends it, reads back as its cents', () => {
  fc.assert(fc.property(fc.integer({ min: 0, max: MAX_CENTS }), (cents) => {
    const wire = JSON.parse(JSON.stringify(Number((cents / 100).toFixed(2)))); // what crosses the wire
    return toMinor(wire) === cents && fromUnit(wire, 'major') === cents;
  }), { numRuns: 2000 });
});

test('property: toUnit and fromUnit are inverse in both units; minor keeps integers untouched', () => {
  fc.assert(fc.property(fc.integer({ min: 0, max: MAX_CENTS }), fc.constantFrom('minor', 'major'), (cents, unit) => {
    const wire = toUnit(cents, unit)!;
    return fromUnit(wire, unit) === cents && (unit === 'major' || wire === cents);
  }), { numRuns: 2000 });
});

test('an unbound unit is an error, never a silent default', () => {
  assert.throws(() => toUnit(1999, undefined), /amount unit is not bound/);
  assert.throws(() => fromUnit(1999, 'cents'), /amount unit is not bound/);
});
