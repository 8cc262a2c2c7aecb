import { randomBytes } from 'node:crypto';
import { openDatabase } from '../src/store/db';

/**
 * `node dist/bench/seed.js <database> <accountId> [count=1000000]`: store `count` settled charges (one attempt
 * each) for an account, spread over the past year, so the bench can compare list, read and create latency on a
 * full database with an empty one. Rows go in through prepared statements, 10,000 per transaction; a million
 * takes about a minute.
 */
export function seedCharges(file: string, accountId: string, count: number): void {
  const db = openDatabase(file);
  const charge = db.prepare(`INSERT INTO charges (id, account_id, gateway, primary_gateway, external_id, payment_method, status, amount,
    paid_amount, refunded_amount, currency, captured, description, created_at, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 'BRL', ?, 'Seeded order', ?, ?)`);
  const attempt = db.prepare(`INSERT INTO charge_attempts (charge_id, seq, operation, gateway, outcome, duration_ms, created_at)
    VALUES (?, 1, 'create', ?, 'success', 120, ?)`);
  const gateways = ['pagarme', 'stripe', 'asaas', 'mercadopago', 'pagbank'];
  const statuses = ['approved', 'approved', 'approved', 'pending', 'declined', 'refunded', 'cancelled'];
  const methods = ['credit_card', 'pix', 'boleto'];
  const end = Date.now() - 60_000;
  const step = Math.max(1, Math.floor((365 * 86_400_000) / count));
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const id = `chg_${randomBytes(12).toString('hex')}`;
      const gateway = gateways[i % gateways.length];
      const status = statuses[i % statuses.length];
      const at = new Date(end - (count - i) * step).toISOString();
      const amount = 100 + (i % 100_000);
      charge.run(id, accountId, gateway, gateway, `ext_${i}`, methods[i % methods.length], status, amount,
        status === 'approved' || status === 'refunded' ? amount : 0, methods[i % 3] === 'credit_card' ? 1 : null, at, at);
      attempt.run(id, gateway, at);
    }
  });
  for (let from = 0; from < count; from += 10_000) batch(from, Math.min(count, from + 10_000));
  db.pragma('optimize');
  db.close();
}

if (require.main === module) {
  const [file, accountId, count] = process.argv.slice(2);
  if (!file || !accountId) {
    process.stderr.write('usage: node dist/bench/seed.js <database> <accountId> [count=1000000]\n');
    process.exit(2);
  }
  const started = Date.now();
  seedCharges(file, accountId, Number(count ?? 1_000_000));
  process.stdout.write(`${JSON.stringify({ seeded: Number(count ?? 1_000_000), seconds: (Date.now() - started) / 1000 })}\n`);
}
