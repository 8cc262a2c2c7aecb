import { test } from 'node:test';
import assert from 'node:assert/strict';
import { html, raw } from '../src/dashboard/html';
import { field, formErrors, NO_ERRORS } from '../src/dashboard/forms';
import { rgError } from '../src/errors';

// Every page is built with the `html` tag: data can never become markup.

test('interpolated values are escaped in text and in quoted attributes', () => {
  const evil = `"><script>alert(1)</script><a href='x'>&`;
  const out = html`<p title="${evil}">${evil}</p>`.value;
  assert.equal(out, '<p title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;a href=&#39;x&#39;&gt;&amp;">&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;a href=&#39;x&#39;&gt;&amp;</p>');
  assert.doesNotMatch(out, /<script>/);
});

test('nested html is kept, arrays are joined, null, undefined and false render nothing, numbers render', () => {
  const items = ['a<b', 'c'];
  assert.equal(html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>`.value, '<ul><li>a&lt;b</li><li>c</li></ul>');
  assert.equal(html`${null}${undefined}${false}${0}${raw('<br>')}`.value, '0<br>');
});

test('a field shows its value escaped and its error next to it, tied by aria-describedby', () => {
  const errors = formErrors(rgError('OWNER_EMAIL_TAKEN', { email: 'x@y.co' }));
  const out = field({ name: 'email', label: 'E-mail', value: '"onmouseover="x', errors }).value;
  assert.match(out, /value="&quot;onmouseover=&quot;x"/);
  assert.match(out, /aria-describedby="f-email-error"/);
  assert.match(out, /<p class="error" id="f-email-error" role="alert">email already signs in to another account<\/p>/);
  assert.doesNotMatch(field({ name: 'email', label: 'E-mail', errors: NO_ERRORS }).value, /class="error"/);
});

test('an error without field details is a form-level message; anything not from the catalogue is rethrown', () => {
  assert.deepEqual(formErrors(rgError('LOGIN_FAILED')), { fields: {}, form: ['Wrong e-mail or password'] });
  assert.throws(() => formErrors(new Error('boom')), /boom/);
});
