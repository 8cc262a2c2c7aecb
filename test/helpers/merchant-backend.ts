import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Close a test server now: its keep-alive connections too, which server.close() alone would wait for. */
export async function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

export interface Received { headers: http.IncomingHttpHeaders; body: string; at: number }

/**
 * A merchant's backend: a real HTTP server on a port of its own that records every POST. It can answer an error
 * status (`failWith`), or be stopped and started again on the same port (down, then back).
 */
export class MerchantBackend {
  readonly received: Received[] = [];
  failWith: number | undefined;
  /** Take requests and never answer them (a backend stuck mid-request); counted in `hung`. */
  hang = false;
  hung = 0;
  /** Take each request, record it, and answer only after this many ms (a backend slower than RouteGate's timeout). */
  lateMs: number | undefined;
  private server: http.Server | undefined;
  private port = 0;
  private waiters: Array<() => void> = [];

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks/routegate`;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        if (this.hang) {
          this.hung += 1;
          return;
        }
        if (this.failWith) {
          res.writeHead(this.failWith).end('down for maintenance');
          return;
        }
        this.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
        const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
        if (this.lateMs) setTimeout(() => { if (!res.destroyed) answer(); }, this.lateMs);
        else answer();
        for (const w of this.waiters.splice(0)) w();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (s) await closeServer(s);
  }

  /** Resolves once `count` events have been received, or rejects after `ms`. */
  async waitFor(count: number, ms = 15_000): Promise<Received[]> {
    const until = Date.now() + ms;
    while (this.received.length < count) {
      if (Date.now() > until) throw new Error(`backend got ${this.received.length} of ${count} events within ${ms} ms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 100);
        this.waiters.push(() => { clearTimeout(t); resolve(); });
      });
    }
    return this.received;
  }
}
