import { pacedLatency } from './latency';

export interface GrowthFigures { listFirstPage: number; listNextPage: number; getById: number; createCharge: number }

/**
 * p50 latency (ms, open loop at `rate` req/s) of the reads and the write that must not slow down as charges pile
 * up: the first and a cursor page of GET /api/v1/charges, GET /api/v1/charges/:id and POST /api/v1/charges.
 */
export async function growthFigures(base: string, apiKey: string, charge: unknown, rate: number, seconds: number): Promise<GrowthFigures> {
  const headers = { 'x-api-key': apiKey };
  const json = { ...headers, 'content-type': 'application/json' };
  // 110 charges made now, so the empty database's second page of 50 is full, as the seeded one's is (with 60 it
  // held 10 rows against 50, and the cursor page compared serializing 10 charges with serializing 50); GET :id
  // reads a row both databases hold.
  let made = { data: { id: '' } };
  for (let i = 0; i < 110; i++) {
    made = await (await fetch(`${base}/api/v1/charges`, { method: 'POST', headers: json, body: JSON.stringify(charge) })).json() as typeof made;
  }
  const first = await (await fetch(`${base}/api/v1/charges?limit=50`, { headers })).json() as { pagination: { nextCursor: string | null } };
  const cursor = first.pagination.nextCursor;
  const p50 = async (path: string, method: 'GET' | 'POST' = 'GET', body?: string) =>
    (await pacedLatency({ url: `${base}${path}`, headers: body ? json : headers, method, body }, rate, seconds)).p50;
  return {
    listFirstPage: await p50('/api/v1/charges?limit=50'),
    listNextPage: cursor ? await p50(`/api/v1/charges?limit=50&cursor=${encodeURIComponent(cursor)}`) : NaN,
    getById: await p50(`/api/v1/charges/${made.data.id}`),
    createCharge: await p50('/api/v1/charges', 'POST', JSON.stringify(charge)),
  };
}
