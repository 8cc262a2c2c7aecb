import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Histogram, Registry } from 'prom-client';
import { SeriesCounter, SeriesHistogram } from '../src/http/series';
import { RecentKeys } from '../src/http/metrics';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const LABELS = ['method', 'route', 'status_code'] as const;

test("series metrics write the exposition prom-client's own counter and histogram write for the same observations", async () => {
  const ours = new Registry();
  const theirs = new Registry();
  const counter = new SeriesCounter({ name: 'rg_requests_total', help: 'answers', labelNames: LABELS, registers: [ours] });
  const histogram = new SeriesHistogram({ name: 'rg_request_seconds', help: 'time', labelNames: LABELS, buckets: BUCKETS, registers: [ours] });
  const pCounter = new Counter({ name: 'rg_requests_total', help: 'answers', labelNames: [...LABELS], registers: [theirs] });
  const pHistogram = new Histogram({ name: 'rg_request_seconds', help: 'time', labelNames: [...LABELS], buckets: BUCKETS, registers: [theirs] });
  assert.equal(await ours.metrics(), await theirs.metrics(), 'nothing observed: no series');

  // Every bucket's edge, values between and beyond the last bound, on several series in an irregular order.
  const series: Array<[string, string, number]> = [['POST', '/api/v1/charges', 201], ['GET', '/api/v1/charges/:id', 404], ['POST', '/api/v1/charges', 502], ['GET', 'unmatched', 404]];
  const values = [...BUCKETS, 0, 0.0049, 0.007, 0.3, 61, 120.5, 1e-9];
  let n = 0;
  for (const v of values) {
    for (let i = 0; i < series.length; i++) {
      if ((n++ * 7) % 3 === 0) continue;
      const [method, route, status] = series[i];
      counter.inc([method, route, status]);
      histogram.observe([method, route, status], v);
      pCounter.inc({ method, route, status_code: String(status) });
      pHistogram.observe({ method, route, status_code: String(status) }, v);
    }
  }
  counter.inc(['PUT', '/x', 200], 5);
  counter.inc(['PUT', '/x', '200'], 2); // the same series as the number 200
  pCounter.inc({ method: 'PUT', route: '/x', status_code: '200' }, 7);
  assert.equal(await ours.metrics(), await theirs.metrics());
  // As a JSON consumer reads them (prom-client leaves some fields undefined).
  const json = async (r: Registry) => JSON.parse(JSON.stringify(await r.getMetricsAsJSON()));
  assert.deepEqual(await json(ours), await json(theirs));
});

test('RecentKeys answers false for a key seen lately, and forgets the oldest generation as it fills', () => {
  const keys = new RecentKeys(4);
  assert.equal(keys.add('a'), true);
  assert.equal(keys.add('a'), false);
  assert.equal(keys.add('b'), true);
  assert.equal(keys.add('c'), true); // a and b are now the older generation
  assert.equal(keys.add('a'), false);
  assert.equal(keys.add('d'), true);
  assert.equal(keys.add('e'), true); // c and d older: a and b forgotten
  assert.equal(keys.add('c'), false);
  assert.equal(keys.add('a'), true);
});
