import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFlatXml } from '../src/lib/flat-xml';

// The reader behind the PagBank legacy transaction read (docs/webhooks.md, "PagBank chargebacks").

const TRANSACTION = '<?xml version="1.0" encoding="ISO-8859-1" standalone="yes"?><transaction><date>2030-01-01T10:00:00.000-03:00</date>'
  + '<code>3E6F1E2A-0C1B-4B7B-9E0C-2C7F3A6B8D11</code><reference>chg_1 &amp; &#233;</reference><type>1</type><status>9</status>'
  + '<paymentMethod><type>8</type><code>101</code></paymentMethod><grossAmount>19.99</grossAmount><empty/>'
  + '<items><item><id>1</id></item></items></transaction>';

test('reads the root and its leaf children; nested elements do not shadow them; the predefined and numeric entities decode', () => {
  const doc = readFlatXml(TRANSACTION)!;
  assert.equal(doc.root, 'transaction');
  assert.equal(doc.fields.type, '1', 'the nested paymentMethod <type> is not the transaction\'s');
  assert.equal(doc.fields.code, '3E6F1E2A-0C1B-4B7B-9E0C-2C7F3A6B8D11');
  assert.equal(doc.fields.status, '9');
  assert.equal(doc.fields.reference, 'chg_1 & é');
  assert.equal(doc.fields.grossAmount, '19.99');
  assert.equal(doc.fields.empty, '');
  assert.equal(doc.fields.paymentMethod, undefined);
  assert.equal(doc.fields.id, undefined);
});

test('refuses a DTD, entity declarations, mismatched tags, two roots and stray text', () => {
  const bomb = '<?xml version="1.0"?><!DOCTYPE t [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><transaction><code>&b;</code></transaction>';
  assert.equal(readFlatXml(bomb), undefined);
  assert.equal(readFlatXml('<transaction><code>1</status></transaction>'), undefined);
  assert.equal(readFlatXml('<transaction><code>1</code>'), undefined);
  assert.equal(readFlatXml('<a></a><b></b>'), undefined);
  assert.equal(readFlatXml('text<transaction></transaction>'), undefined);
  assert.equal(readFlatXml('<transaction><code>a < b</code></transaction>'), undefined);
  assert.equal(readFlatXml('not xml at all'), undefined);
});

test('an unknown named entity stays as written, and __proto__ is only a field name', () => {
  const doc = readFlatXml('<transaction><code>&foo;</code><__proto__>x</__proto__></transaction>')!;
  assert.equal(doc.fields.code, '&foo;');
  assert.equal(Object.getPrototypeOf(doc.fields), Object.prototype);
  assert.equal(Object.getOwnPropertyDescriptor(doc.fields, '__proto__')?.value, 'x');
});
