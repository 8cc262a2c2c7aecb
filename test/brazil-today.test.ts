import { test } from 'node:test';
import assert from 'node:assert/strict';
import { brazilDayStartIso, brazilToday } from '../src/lib/iso-time';
import { lastDays } from '../src/dashboard/chart';
import { today } from '../src/gateways/common';

// Gateways count calendar dates in Brazil (UTC-3): from 21:00 to midnight there the UTC date is already tomorrow,
// and a boleto's due date computed from it came out a day early.
test("today is Brazil's date, also in the three hours the UTC date runs ahead", (t) => {
  const at = (iso: string) => {
    t.mock.method(Date, 'now', () => Date.parse(iso));
    const day = brazilToday();
    t.mock.restoreAll();
    return day;
  };
  assert.equal(at('2026-11-27T00:30:00Z'), '2026-11-26', '21:30 in São Paulo');
  assert.equal(at('2026-11-27T02:59:59Z'), '2026-11-26', '23:59:59 in São Paulo');
  assert.equal(at('2026-11-27T03:00:00Z'), '2026-11-27', 'midnight in São Paulo');
  assert.equal(at('2026-11-27T23:59:59Z'), '2026-11-27', '20:59:59 in São Paulo');
  assert.equal(at('2027-01-01T02:00:00Z'), '2026-12-31', 'the year turns at midnight there too');
  t.mock.method(Date, 'now', () => Date.parse('2026-11-27T01:00:00Z'));
  assert.equal(today(), '2026-11-26', 'the date the adapters give the mappings');
});

test("the dashboard's 30 days are Brazil's, and their first day starts at 03:00 UTC", () => {
  const days = lastDays(Date.parse('2026-11-27T01:00:00Z')); // 22:00 on the 26th in São Paulo
  assert.equal(days.length, 30);
  assert.equal(days[29], '2026-11-26', 'today in Brazil is the last bar');
  assert.equal(days[0], '2026-10-28');
  assert.deepEqual(lastDays(Date.parse('2026-11-27T03:00:00Z')).slice(-2), ['2026-11-26', '2026-11-27'], 'a new bar at midnight there');
  assert.equal(brazilDayStartIso(days[0]), '2026-10-28T03:00:00.000Z');
  assert.equal(brazilDayStartIso('2027-01-01'), '2027-01-01T03:00:00.000Z');
});
