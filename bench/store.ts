import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteStore, type SqliteStore } from '../src/store';
import { newChargeId } from '../src/charges/orchestrator';
import type { ChargeRecord } from '../src/store/charges';

/**
 * `npm run bench:store [charges=20000] [perCommit=10]`: the SQLite store alone, doing a create's writes as the
 * orchestrator does them under load (group commit: `perCommit` charges born in one transaction, then settled in
 * the next), with the checkpoints on their worker thread as in the service. Prints the process's CPU per charge
 * (the checkpoint thread included), the time in each kind of statement, and the WAL pages each commit wrote, by
 * table and index: every page a commit changes goes to the WAL in full, and the checkpoint copies it again.
 * A measuring tool: nothing here ships in the service.
 */
const COUNT = Number(process.argv[2] ?? 20_000);
const PER_COMMIT = Number(process.argv[3] ?? 10);
const PAGE_HEADER = 24;

function freshStore(): { store: SqliteStore; file: string; accountId: string } {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-store-bench-')), 'bench.db');
  const store = openSqliteStore(file);
  const accountId = 'acc_bench';
  const now = new Date().toISOString();
  store.db.prepare('INSERT INTO accounts (id, name, email, webhook_token, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
    .run(accountId, 'Bench', 'bench@example.com', 'whk_bench', now, now);
  return { store, file, accountId };
}

function newCharge(accountId: string): ChargeRecord {
  const now = new Date().toISOString();
  return {
    id: newChargeId(), accountId, gateway: 'pagarme', primaryGateway: 'pagarme', fallbackUsed: false, externalId: null, paymentMethod: 'credit_card',
    status: 'processing', amount: 1999, paidAmount: 0, refundedAmount: 0, currency: 'BRL', captured: null, description: 'Bench order',
    customerId: null, refs: null, pixQrCode: null, pixCopyPaste: null, boletoUrl: null, boletoBarcode: null, declineCode: null, errorCode: null,
    errorMessage: null, createdAt: now, updatedAt: now, metadata: null,
  };
}

const randomId = (prefix: string) => `${prefix}_${Math.random().toString(36).slice(2, 18)}`;
const timings = { insert: 0, addAttempt: 0, finishAttempt: 0, settle: 0, commit: 0 };
type Kind = keyof typeof timings;

async function timed(kind: Kind, run: () => unknown): Promise<void> {
  const started = performance.now();
  await run();
  timings[kind] += performance.now() - started;
}

// BEGIN and COMMIT prepared once per store, as the group commit prepares them.
const prepared = new Map<SqliteStore, { begin: { run(): unknown }; commit: { run(): unknown } }>();
function transaction(store: SqliteStore) {
  let t = prepared.get(store);
  if (!t) prepared.set(store, (t = { begin: store.db.prepare('BEGIN IMMEDIATE'), commit: store.db.prepare('COMMIT') }));
  return t;
}

/** The transaction of `charges`' births (each with its in_flight attempt), as a saturated service groups them. */
async function births(store: SqliteStore, charges: ChargeRecord[]): Promise<void> {
  transaction(store).begin.run();
  for (const c of charges) {
    await timed('insert', () => store.charges.insert(c, { owner: 'bench', expiresAt: Date.now() + 60_000 }, 1));
    await timed('addAttempt', () => store.charges.addAttempt(c.id, { seq: 1, operation: 'charge', gateway: 'pagarme', outcome: 'in_flight', idempotencyKey: `${c.id}-1`, durationMs: 0 }));
  }
  await timed('commit', () => transaction(store).commit.run());
}

/** The transaction of their settles: the attempt's end, the outcome (two gateway ids, as Pagar.me gives), the lock's release. */
async function settles(store: SqliteStore, charges: ChargeRecord[]): Promise<void> {
  transaction(store).begin.run();
  for (const c of charges) {
    await timed('finishAttempt', () => store.charges.finishAttempt(c.id, { seq: 1, operation: 'charge', gateway: 'pagarme', outcome: 'success', durationMs: 3 }));
    await timed('settle', () => store.charges.settle(c.id, {
      status: 'approved', externalId: randomId('ch'), paidAmount: 1999, captured: true, refs: { orderId: randomId('or') },
      card: { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2030 },
    }, 'bench'));
  }
  await timed('commit', () => transaction(store).commit.run());
}

/** One group commit of births, then one of settles, as a saturated service writes them. */
async function createBatch(store: SqliteStore, accountId: string): Promise<void> {
  const charges = Array.from({ length: PER_COMMIT }, () => newCharge(accountId));
  await births(store, charges);
  await settles(store, charges);
}

/** The page number of every frame in the WAL file, in order. */
function walPages(file: string, pageSize: number): number[] {
  let wal: Buffer;
  try {
    wal = fs.readFileSync(`${file}-wal`);
  } catch {
    return [];
  }
  const pages: number[] = [];
  for (let at = 32; at + PAGE_HEADER <= wal.length; at += pageSize + PAGE_HEADER) pages.push(wal.readUInt32BE(at));
  return pages;
}

/** WAL pages per birth commit and per settle commit, by the table or index each page belongs to. */
async function pagesPerCommit(): Promise<void> {
  const { store, file, accountId } = freshStore();
  store.db.pragma('wal_autocheckpoint = 0');
  const pageSize = store.db.pragma('page_size', { simple: true }) as number;
  for (let i = 0; i < 2_000; i++) await createBatch(store, accountId); // a table of some size: splits happen as in a live one
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  const owner = new Map((store.db.prepare('SELECT name, pageno FROM dbstat').all() as Array<{ name: string; pageno: number }>).map((r) => [r.pageno, r.name]));
  const rounds = 50;
  const birth = new Map<string, number>();
  const settle = new Map<string, number>();
  const count = (into: Map<string, number>, pages: number[]) => {
    for (const p of pages) into.set(owner.get(p) ?? '(new pages)', (into.get(owner.get(p) ?? '(new pages)') ?? 0) + 1);
  };
  for (let r = 0; r < rounds; r++) {
    const charges = Array.from({ length: PER_COMMIT }, () => newCharge(accountId));
    const before = walPages(file, pageSize).length;
    await births(store, charges);
    const afterBirth = walPages(file, pageSize);
    count(birth, afterBirth.slice(before));
    await settles(store, charges);
    count(settle, walPages(file, pageSize).slice(afterBirth.length));
  }
  const show = (label: string, m: Map<string, number>) => {
    const total = [...m.values()].reduce((a, b) => a + b, 0) / rounds;
    const parts = [...m].sort((a, b) => b[1] - a[1]).map(([name, n]) => `${name} ${(n / rounds).toFixed(1)}`).join(', ');
    process.stdout.write(`  ${label} commit: ${total.toFixed(1)} pages (${parts})\n`);
  };
  process.stdout.write(`WAL pages per commit of ${PER_COMMIT} charges:\n`);
  show('birth', birth);
  show('settle', settle);
  await store.close();
}

async function main(): Promise<void> {
  const { store, accountId } = freshStore();
  store.startCheckpointer();
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let made = 0; made < COUNT; made += PER_COMMIT) await createBatch(store, accountId);
  const used = process.cpuUsage(cpu);
  const wall = performance.now() - started;
  await store.close();
  const perCharge = (us: number) => (us / COUNT).toFixed(1);
  process.stdout.write(`${COUNT} charges, ${PER_COMMIT} per commit: CPU ${perCharge(used.user + used.system)} µs per charge `
    + `(user ${perCharge(used.user)}, system ${perCharge(used.system)}), wall ${perCharge(wall * 1000)} µs\n`);
  for (const [kind, ms] of Object.entries(timings)) process.stdout.write(`  ${kind.padEnd(14)} ${perCharge(ms * 1000)} µs per charge (wall)\n`);
  await pagesPerCommit();
}

main().catch((err) => {
  process.stderr.write(`bench:store: ${err.stack ?? err}\n`);
  process.exitCode = 1;
});
