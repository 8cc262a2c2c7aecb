import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer } from './merchant-backend';

/** How long the backend takes over each delivery it accepts. */
const HOLD_MS = 150;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One POST the merchant backend received, and what became of it. */
export interface Received {
  eventId: string;
  attempt: number; // X-RG-Delivery-Attempt
  raw: string;
  headers: http.IncomingHttpHeaders;
  /** The RouteGate process holding the delivery's lease while this request was open (from the outbox row). */
  senderPid?: number;
  /** What the backend answered; undefined for a request it was holding when the connection died. */
  answered?: number;
  /** Kept open on purpose (see holdFrom) until the sender died. */
  held: boolean;
  /** The connection closed before the backend answered. */
  severed: boolean;
}

/**
 * The merchant's backend: refuses every event's first attempt (503), so each event goes through the outbox and is
 * retried by whichever process's worker claims it; accepts the retries after HOLD_MS. Requests from
 * `holdFrom` (a pid) are taken and never answered: the test kills that process while one is open.
 */
export class RecordingBackend {
  readonly received: Received[] = [];
  holdFrom: number | undefined;
  private server: http.Server | undefined;

  constructor(private readonly senderOf: (eventId: string) => Promise<number | undefined>) {}

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/hooks/routegate`;
  }

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r: Received = {
          eventId: String(req.headers['webhook-id']), attempt: Number(req.headers['x-rg-delivery-attempt']), raw: Buffer.concat(chunks).toString('utf8'),
          headers: req.headers, held: false, severed: false,
        };
        this.received.push(r);
        res.on('close', () => { if (!res.writableFinished) r.severed = true; });
        if (r.attempt === 1) {
          r.answered = 503;
          res.writeHead(503).end('not yet');
          return;
        }
        // The lease is held by the sender until it records this attempt, which waits for this answer.
        this.senderOf(r.eventId).then(async (pid) => {
          r.senderPid = pid;
          if (pid !== undefined && pid === this.holdFrom) {
            r.held = true;
            return;
          }
          await sleep(HOLD_MS);
          r.answered = 200;
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
        }, () => {
          r.answered = 500;
          res.writeHead(500).end();
        });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (s) await closeServer(s);
  }
}
