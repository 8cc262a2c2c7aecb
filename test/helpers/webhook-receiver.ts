import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Hit {
  path: string; // with query string
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: any;
}

export interface Receiver {
  url: string;
  hits: Hit[];
  /** Statuses to answer with, in order; once used up, 200. */
  answers: number[];
  /**
   * Resolves once `predicate` holds for the hits received so far (checked on every hit); rejects, listing the hits,
   * when it still does not after `ms` (default 15 s: a webhook that works arrives well within a second).
   */
  until(predicate: (hits: Hit[]) => boolean, ms?: number): Promise<Hit[]>;
  close(): Promise<void>;
}

/** A real HTTP server on port 0 that records every webhook it gets, the raw body exactly as received. */
export async function startReceiver(): Promise<Receiver> {
  const hits: Hit[] = [];
  const answers: number[] = [];
  const waiters: Array<() => void> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      hits.push({ path: req.url ?? '', headers: req.headers, raw, body });
      res.statusCode = answers.shift() ?? 200;
      res.end();
      for (const w of waiters.splice(0)) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    hits,
    answers,
    async until(predicate, ms = 15_000) {
      const deadline = Date.now() + ms;
      while (!predicate(hits)) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`waited ${ms} ms for the webhook, in vain; received: ${hits.map((h) => h.raw.slice(0, 120)).join(' | ') || 'nothing'}`);
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          timer = setTimeout(resolve, left);
          waiters.push(resolve);
        });
        clearTimeout(timer);
      }
      return hits;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * X-RG-Signature checked as a merchant would, with nothing but node:crypto: some v1 is the hex HMAC-SHA256 of
 * "<t>.<raw body>" keyed with the whole whsec_ secret.
 */
export function rgSignatureValid(header: unknown, rawBody: string, secret: string): boolean {
  const t = /(?:^|,)t=(\d+)/.exec(String(header ?? ''))?.[1];
  if (!t) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest('hex');
  return [...String(header).matchAll(/v1=([0-9a-f]{64})/g)].some((m) => m[1] === expected);
}
