import { GATEWAY_IDS } from '../gateways/registry-ids';
import { loadConfig, ConfigError, resolveMappingsDir } from '../config';
import { openStore, type Store } from '../store';
import { AccountService } from '../accounts/service';
import { CredentialVault } from '../accounts/credential-vault';
import { MappingLoadError, loadMappings } from '../mapping/loader';
import { runFixtures } from '../mapping/fixtures';
import { parseArgs } from './args';
import { capabilityMarkdown } from '../gateways/capability-docs';

export const USAGE = `usage: routegate <command>

  accounts create --name NAME --email EMAIL   create an account; prints {"id","apiKey"} (the key is shown once)
  accounts list                               one JSON line per account
  accounts deactivate ID                      refuse the account's key with 403 CLIENT_INACTIVE
  accounts activate ID                        accept it again
  keys rotate ID                              new key printed once; the previous key stops working at once
  emulators [--port N] [--host H]             serve every gateway's emulator under /<gateway id>
  mappings check                              compile every mapping file and run its fixtures
  docs capabilities                           print the gateways' capability tables (markdown, from the registry)

Environment: ROUTEGATE_DB (./data/routegate.db), ROUTEGATE_MASTER_KEY, see README.md.`;

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

class UsageError extends Error {}

function withStore<T>(fn: (store: Store) => T): T {
  const config = loadConfig();
  for (const w of config.warnings) process.stderr.write(`routegate: warning: ${w}\n`);
  const store = openStore(config.dbPath);
  try {
    new CredentialVault(store, config.masterKey).verifyMasterKey();
    return fn(store);
  } finally {
    store.close();
  }
}

function requireId(positional: string[], index: number): string {
  const id = positional[index];
  if (!id) throw new UsageError('missing account ID');
  return id;
}

async function run(argv: string[], io: Io): Promise<number> {
  const { positional, flags } = parseArgs(argv);
  const [group, action] = positional;
  if (group === 'accounts' && action === 'create') {
    const name = flags.name?.trim();
    const email = flags.email?.trim();
    if (!name) throw new UsageError('accounts create needs --name NAME');
    if (!email || !EMAIL.test(email)) throw new UsageError('accounts create needs --email with a valid e-mail address');
    const created = withStore((s) => new AccountService(s).create(name, email));
    io.out(JSON.stringify({ id: created.id, apiKey: created.apiKey }));
    return 0;
  }
  if (group === 'accounts' && action === 'list') {
    const rows = withStore((s) => new AccountService(s).list());
    for (const a of rows) io.out(JSON.stringify({ id: a.id, name: a.name, email: a.email, active: a.active, createdAt: a.createdAt }));
    return 0;
  }
  if (group === 'accounts' && (action === 'deactivate' || action === 'activate')) {
    const id = requireId(positional, 2);
    const ok = withStore((s) => new AccountService(s).setActive(id, action === 'activate'));
    if (!ok) {
      io.err(`routegate: no account with id ${id}`);
      return 1;
    }
    io.out(JSON.stringify({ id, active: action === 'activate' }));
    return 0;
  }
  if (group === 'keys' && action === 'rotate') {
    const id = requireId(positional, 2);
    const rotated = withStore((s) => new AccountService(s).rotateKey(id));
    if (!rotated) {
      io.err(`routegate: no account with id ${id}`);
      return 1;
    }
    io.out(JSON.stringify({ id: rotated.id, apiKey: rotated.apiKey }));
    return 0;
  }
  if (group === 'emulators') {
    const port = flags.port === undefined ? 4010 : Number(flags.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be a port number');
    const { startEmulators } = await import('../sandbox/emulators');
    const server = await startEmulators({ port, host: flags.host || '127.0.0.1' });
    io.out(JSON.stringify({ emulators: server.url, gateways: GATEWAY_IDS.map((g) => `${server.url}/${g}`) }));
    const stop = () => server.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return -1; // keep running
  }
  if (group === 'mappings' && action === 'check') {
    const dir = resolveMappingsDir();
    const registry = loadMappings(dir);
    const results = await runFixtures(dir, registry);
    let failed = 0;
    for (const r of results) {
      if (!r.ok) failed++;
      io.out(`${r.ok ? 'ok  ' : 'FAIL'} ${r.file}${r.ok ? '' : `\n     ${r.message}`}`);
    }
    const files = [...registry.values()].reduce((n, set) => n + set.names().length, 0);
    io.out(`${files} mapping files compiled, ${results.length - failed} passed, ${failed} failed`);
    return failed === 0 ? 0 : 1;
  }
  if (group === 'docs' && action === 'capabilities') {
    io.out(capabilityMarkdown());
    return 0;
  }
  throw new UsageError(group ? `unknown command: ${positional.join(' ')}` : 'no command given');
}

/** Exit codes: 0 ok, 1 failure (e.g. unknown id, failing fixtures), 2 bad arguments. */
export async function main(argv: string[], io: Io = { out: (l) => process.stdout.write(l + '\n'), err: (l) => process.stderr.write(l + '\n') }): Promise<number> {
  try {
    return await run(argv, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`routegate: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    if (err instanceof ConfigError || err instanceof MappingLoadError) {
      io.err(`routegate: ${err.message}`);
      return 1;
    }
    io.err(`routegate: ${(err as Error).message}`);
    return 1;
  }
}
