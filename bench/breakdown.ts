import { spawnSync } from 'node:child_process';
import autocannon from 'autocannon';
import { MappingSet } from '../src/mapping/loader';
import { ChargesRepository, type ChargeRecord } from '../src/store/charges';
import { startE2E } from '../test/helpers/e2e';

/**
 * `npm run bench:breakdown`: where a charge's CPU goes, by elimination. The same in-process load (service +
 * emulators + autocannon in one process, so the figures are comparable with each other only) runs with the
 * real code, then with JSONata replaced by a memo of its first answer, then with the charge writes skipped,
 * then both. Each variant runs in a fresh process. A measuring tool: nothing here ships in the service.
 */
const VARIANTS = ['real', 'no-jsonata', 'no-store-writes', 'neither'] as const;
type Variant = (typeof VARIANTS)[number];

async function measure(variant: Variant): Promise<void> {
  if (variant === 'no-jsonata' || variant === 'neither') {
    const evaluate = MappingSet.prototype.evaluate;
    const memo = new Map<string, unknown>();
    MappingSet.prototype.evaluate = async function (this: MappingSet, name: string, input: unknown, bindings?: Record<string, unknown>) {
      const key = `${this.gateway}/${name}`;
      if (!memo.has(key)) memo.set(key, await evaluate.call(this, name, input, bindings));
      return structuredClone(memo.get(key)) as never;
    } as typeof evaluate;
  }
  if (variant === 'no-store-writes' || variant === 'neither') {
    // The charge lives in memory only: settle answers it as the store would have.
    const held = new Map<string, ChargeRecord>();
    ChargesRepository.prototype.insert = async (c) => void held.set(c.id, c);
    ChargesRepository.prototype.update = async () => undefined;
    ChargesRepository.prototype.settle = async (id, patch) => {
      const settled = { ...held.get(id)!, ...patch, updatedAt: new Date().toISOString() } as ChargeRecord;
      held.delete(id);
      return settled;
    };
    ChargesRepository.prototype.addAttempt = async () => undefined;
    ChargesRepository.prototype.finishAttempt = async () => undefined;
  }
  const e2e = await startE2E({ ROUTEGATE_LOG_LEVEL: 'warn' });
  const key = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: [] });
  const body = JSON.stringify({
    paymentMethod: 'credit_card', amount: 1999, customer: { name: 'Maria Souza', email: 'maria@example.com', document: '12345678909' },
    creditCard: { number: '4242424242424242', holderName: 'MARIA SOUZA', expMonth: 12, expYear: 2030, cvv: '123' },
  });
  const opts = { url: `${e2e.sandbox.url}/api/v1/charges`, method: 'POST' as const, body, headers: { 'x-api-key': key, 'content-type': 'application/json' }, connections: 10 };
  await autocannon({ ...opts, duration: 2 });
  const before = process.cpuUsage();
  const r = await autocannon({ ...opts, duration: Number(process.env.BENCH_DURATION ?? 5) });
  const cpu = process.cpuUsage(before);
  await e2e.close();
  process.stdout.write(JSON.stringify({ variant, requestsPerSec: Math.round(r.requests.average), cpuMsPerCharge: (cpu.user + cpu.system) / 1000 / r.requests.total, non2xx: r.non2xx }) + '\n');
}

function main(): void {
  const rows = VARIANTS.map((variant) => {
    const run = spawnSync(process.execPath, [__filename, variant], { encoding: 'utf8', env: process.env });
    if (run.status !== 0) throw new Error(`${variant}: ${run.stderr}`);
    return JSON.parse(run.stdout.trim().split('\n').pop()!) as { variant: Variant; requestsPerSec: number; cpuMsPerCharge: number; non2xx: number };
  });
  const real = rows[0].cpuMsPerCharge;
  for (const r of rows) {
    process.stdout.write(`${r.variant.padEnd(16)} ${String(r.requestsPerSec).padStart(6)} charges/s   ${r.cpuMsPerCharge.toFixed(3)} ms CPU per charge`
      + `   (${r.variant === 'real' ? 'all of it' : `${(real - r.cpuMsPerCharge).toFixed(3)} ms less`})${r.non2xx ? `   non-2xx ${r.non2xx}` : ''}\n`);
  }
}

const variant = process.argv[2] as Variant | undefined;
if (variant) {
  measure(variant).catch((err) => {
    process.stderr.write(String(err?.stack ?? err));
    process.exit(1);
  });
} else {
  main();
}
