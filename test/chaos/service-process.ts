import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore } from '../../src/store/open';
import type { Store } from '../../src/store';
import { CredentialVault } from '../../src/accounts/credential-vault';
import { GATEWAY_IDS } from '../../src/gateways/registry-ids';
import type { EmulatorServer } from '../../src/sandbox/emulators';
import { TEST_DB } from '../helpers/test-db';
import { freshPgDatabase } from '../helpers/pg';
import { freePort, killHard, startRouteGate, type RouteGateProcess } from '../helpers/routegate-processes';

// RouteGate as a child process (`node dist/src/server.js`) on a database of its own: a SQLite file, or with
// ROUTEGATE_TEST_DB=postgres a fresh PostgreSQL database given as DATABASE_URL, so SIGKILL and restart are tested on
// both stores. Everything is read back over HTTP (never by opening the file), so the same checks run on both.

export const MASTER_KEY = 'f'.repeat(64);

export interface ServiceProcess {
  url: string;
  /** A store on the same database, for setup before the first start (closed by `start`). */
  setup: { store: Store; vault: CredentialVault };
  start(): Promise<void>;
  kill(): Promise<void>;
  close(): Promise<void>;
}

export async function serviceProcess(emulators: EmulatorServer, env: Record<string, string>): Promise<ServiceProcess> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-chaos-'));
  const dbPath = path.join(dir, 'rg.db');
  const pgDb = TEST_DB === 'postgres' ? await freshPgDatabase() : undefined;
  const database: Record<string, string> = pgDb ? { DATABASE_URL: pgDb.url } : { ROUTEGATE_DB: dbPath };
  const store = await openStore({ dbPath, databaseUrl: pgDb?.url });
  const vault = new CredentialVault(store, Buffer.from(MASTER_KEY, 'hex'));
  await vault.verifyMasterKey();
  const port = await freePort();
  let proc: RouteGateProcess | undefined;
  let setupOpen = true;
  const childEnv: Record<string, string> = {
    ...database, ROUTEGATE_MASTER_KEY: MASTER_KEY, ROUTEGATE_LOG_LEVEL: 'warn', NODE_ENV: 'test', ROUTEGATE_PUBLIC_URL: `http://127.0.0.1:${port}`,
    ...Object.fromEntries(GATEWAY_IDS.map((g) => [`ROUTEGATE_${g.toUpperCase()}_URL`, emulators.gatewayUrl(g)])),
    ...env,
  };
  return {
    url: `http://127.0.0.1:${port}`,
    setup: { store, vault },
    async start() {
      if (setupOpen) {
        setupOpen = false;
        await store.close();
      }
      proc = await startRouteGate('chaos', childEnv, port);
    },
    async kill() {
      if (proc) await killHard(proc);
    },
    async close() {
      if (proc) await killHard(proc);
      if (setupOpen) await store.close();
      await pgDb?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
