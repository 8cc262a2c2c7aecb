import Fastify from 'fastify';
import { Pool } from 'undici';
import { listenAndPrintUrl, runServer } from './listen';

/**
 * The floor under a normalized charge (`npm run bench:ab` with AB_FLOOR=1): a fastify server doing only the HTTP a
 * charge needs. It parses the JSON body, posts a JSON body to the gateway over a keep-alive undici pool, parses
 * the JSON answer and answers JSON. No store, no mapping, no auth, no validation. Whatever RouteGate spends above
 * this is its own work. A measuring tool: nothing here ships in the service.
 */
async function main(): Promise<void> {
  const [upstream, nativeBody, authorization] = process.argv.slice(2);
  if (!upstream || !nativeBody || !authorization) throw new Error('usage: floor <gateway create url> <native body> <authorization>');
  const target = new URL(upstream);
  const pool = new Pool(target.origin, { connections: 64, pipelining: 1 });
  const native = JSON.parse(nativeBody) as Record<string, unknown>;
  let sequence = 0;
  const app = Fastify({ logger: false });
  app.post<{ Body: { description?: string; amount?: number } }>('/api/v1/charges', async (request, reply) => {
    const body = JSON.stringify({ ...native, code: request.body.description });
    const res = await pool.request({
      path: target.pathname, method: 'POST', body,
      headers: { 'content-type': 'application/json', authorization, 'idempotency-key': `floor-${process.pid}-${++sequence}` },
    });
    const answer = (await res.body.json()) as { id?: string; status?: string };
    reply.code(201);
    return { id: `chg_floor_${sequence}`, externalId: answer.id, status: answer.status, amount: request.body.amount, gateway: 'pagarme' };
  });
  await listenAndPrintUrl(app);
}

runServer(main);
