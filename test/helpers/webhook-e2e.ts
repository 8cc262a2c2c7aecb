import { Writable } from 'node:stream';
import { startE2E, CUSTOMER, type E2E } from './e2e';
import { MerchantBackend } from './merchant-backend';
import type { Reply } from '../helper';
import type { GatewayId } from '../../src/gateways/registry-ids';
import type { SettingsRow } from '../../src/store/accounts';
import { AccountService } from '../../src/accounts/service';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index';
import { GATEWAY_IDS } from '../../src/gateways/registry-ids';

export interface WebhookHarness {
  e2e: E2E;
  backend: MerchantBackend;
  logs: string[];
  /** An account with all five gateways' sandbox credentials (or those given) forwarding to the backend. */
  merchant(opts?: { credentials?: Partial<Record<GatewayId, Record<string, string>>>; settings?: Partial<SettingsRow> }): Promise<Merchant>;
  close(): Promise<void>;
}

export interface Merchant {
  apiKey: string;
  id: string;
  /** Shown once at account creation (the CLI's webhookSigningSecret). */
  signingSecret: string;
  /** The account's receiver path for a gateway: /api/v1/webhooks/<gateway>/<webhookToken>. */
  path(gateway: GatewayId): string;
  /** POST a notification to a receiver path with these headers (and query string). */
  post(path: string, body: string, headers: Record<string, string>): Promise<Reply>;
  events(): Promise<any[]>;
  /** A charge made through RouteGate at the emulators; its stored row as the API shows it. */
  charge(gateway: GatewayId, body: Record<string, unknown>): Promise<any>;
}

export const PIX = { paymentMethod: 'pix', amount: 1999, customer: CUSTOMER, pix: { expiresInSeconds: 3600 } };

export async function startWebhookHarness(env: Record<string, string> = {}): Promise<WebhookHarness> {
  const logs: string[] = [];
  const stream = new Writable({ write(chunk, _e, cb) { logs.push(chunk.toString()); cb(); } });
  const e2e = await startE2E({ ROUTEGATE_WEBHOOK_TIMEOUT_MS: '2000', ROUTEGATE_WEBHOOK_WORKER_INTERVAL_MS: '0', ...env }, { level: 'info', stream });
  const backend = await new MerchantBackend().start();
  return {
    e2e, backend, logs,
    async merchant(opts = {}) {
      // Made as the CLI makes accounts: with the signing secret, shown once.
      const { app } = e2e.sandbox;
      const created = await new AccountService(app.store, app.config.masterKey).create('Loja Webhooks', 'loja@example.com');
      for (const g of GATEWAY_IDS) await app.vault.save(created.id, g, opts.credentials?.[g] ?? SANDBOX_CREDENTIALS[g]);
      await app.store.accounts.saveSettings(created.id, { ...(await app.store.accounts.settings(created.id)), webhookForwardUrl: backend.url, ...opts.settings });
      const apiKey = created.apiKey;
      const me = (await e2e.call('GET', '/api/v1/clients/me', { key: apiKey })).body.data;
      const post = (p: string, body: string, headers: Record<string, string>) => e2e.call('POST', p, { rawBody: body, headers });
      return {
        apiKey, id: me.id, signingSecret: created.webhookSigningSecret!,
        path: (g) => new URL(me.webhookUrls[g]).pathname,
        post,
        events: async () => (await e2e.call('GET', '/api/v1/events?limit=100', { key: apiKey })).body.data,
        charge: async (gateway, body) => {
          const res = await e2e.call('POST', '/api/v1/charges', { key: apiKey, body: { gateway, ...body } });
          if (res.status !== 201) throw new Error(`charge at ${gateway}: ${res.status} ${res.text}`);
          return res.body.data;
        },
      };
    },
    async close() {
      await backend.stop();
      await e2e.close();
    },
  };
}
