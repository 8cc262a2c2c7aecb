import fs from 'node:fs';
import path from 'node:path';
import { loadConfig, ConfigError, resolveMappingsDir } from '../config';
import type { Store } from '../store';
import { openStore } from '../store/open';
import { AccountService, WEBHOOK_TOKEN_OVERLAP_HOURS } from '../accounts/service';
import { webhookUrls } from '../accounts/webhook-urls';
import { CredentialVault } from '../accounts/credential-vault';
import { MappingLoadError } from '../mapping/loader';
import { ROOT } from '../lib/paths';
import { parseStrict, UsageError, type OptionSpec, type Parsed } from './args';
import { checkMappings } from './mappings-check';
import { diffMappings } from './mappings-diff';
import { renderMapping } from './mappings-render';
import { resolveGatewayId } from '../gateways/registry-ids';
import type { Io } from './io';
import { capabilityMarkdown } from '../gateways/capability-docs';
import { GATEWAY_IDS } from '../gateways/registry-ids';
import { LoginService, EMAIL_PATTERN } from '../auth/logins';
import { SessionService } from '../auth/sessions';
import { RouteGateError } from '../errors';
import { randomBase62 } from '../lib/crypto';

export type { Io } from './io';

/** Exit codes, also in docs/operations.md: 0 done, 1 the command failed, 2 the command line is wrong. */
export const EXIT = { OK: 0, FAILED: 1, USAGE: 2 } as const;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

interface Command {
  /** `accounts create`, `keys rotate`, `emulators`... */
  name: string;
  /** Positional arguments, in order, all required. */
  args: string[];
  options: OptionSpec;
  /** The flags and arguments as shown in usage lines. */
  synopsis: string;
  summary: string;
  /** Lines after the summary in the command's own --help. */
  details?: string[];
  /** Exit code, or -1 for a command that keeps running (emulators). */
  run(p: Parsed, io: Io): Promise<number> | number;
}

async function withStore<T>(fn: (store: Store, masterKey: Buffer) => T | Promise<T>): Promise<T> {
  const config = loadConfig();
  for (const w of config.warnings) process.stderr.write(`routegate: warning: ${w}\n`);
  const store = await openStore(config);
  try {
    await new CredentialVault(store, config.masterKey).verifyMasterKey();
    return await fn(store, config.masterKey);
  } finally {
    await store.close();
  }
}

async function withStoreAsync<T>(fn: (store: Store, config: ReturnType<typeof loadConfig>) => Promise<T>): Promise<T> {
  const config = loadConfig();
  for (const w of config.warnings) process.stderr.write(`routegate: warning: ${w}\n`);
  const store = await openStore(config);
  try {
    await new CredentialVault(store, config.masterKey).verifyMasterKey();
    return await fn(store, config);
  } finally {
    await store.close();
  }
}

const COMMANDS: Command[] = [
  {
    name: 'accounts create', args: [], synopsis: '--name NAME --email EMAIL',
    options: { name: { type: 'string' }, email: { type: 'string' } },
    summary: 'create an account; prints {"id","apiKey","webhookSigningSecret"} (both shown once)',
    details: [
      'Only the SHA-256 of the key is stored: copy it now, or rotate it later with `routegate keys rotate ID`.',
      'webhookSigningSecret (whsec_...) signs the events forwarded to the account\'s webhookForwardUrl; it is stored',
      'encrypted and never shown again: rotate it with `routegate webhooks rotate-secret ID`.',
    ],
    async run({ values }, io) {
      const name = typeof values.name === 'string' ? values.name.trim() : '';
      const email = typeof values.email === 'string' ? values.email.trim() : '';
      if (!name) throw usage('accounts create', 'missing --name NAME');
      if (!email || !EMAIL.test(email)) throw usage('accounts create', '--email needs a valid e-mail address');
      const created = await withStore((s, key) => new AccountService(s, key).create(name, email));
      io.out(JSON.stringify({ id: created.id, apiKey: created.apiKey, webhookSigningSecret: created.webhookSigningSecret }));
      return EXIT.OK;
    },
  },
  {
    name: 'accounts list', args: [], synopsis: '', options: {},
    summary: 'one JSON line per account: {"id","name","email","active","createdAt"}',
    async run(_p, io) {
      const rows = await withStore((s) => new AccountService(s).list());
      for (const a of rows) io.out(JSON.stringify({ id: a.id, name: a.name, email: a.email, active: a.active, createdAt: a.createdAt }));
      return EXIT.OK;
    },
  },
  ...(['deactivate', 'activate'] as const).map((action): Command => ({
    name: `accounts ${action}`, args: ['ID'], synopsis: 'ID', options: {},
    summary: action === 'deactivate' ? "refuse the account's key with 403 CLIENT_INACTIVE; prints {\"id\",\"active\"}" : 'accept its key again; prints {"id","active"}',
    async run({ positionals }, io) {
      const id = positionals[0];
      const ok = await withStore((s) => new AccountService(s).setActive(id, action === 'activate'));
      if (!ok) {
        io.err(`routegate: no account with id ${id}`);
        return EXIT.FAILED;
      }
      io.out(JSON.stringify({ id, active: action === 'activate' }));
      return EXIT.OK;
    },
  })),
  {
    name: 'keys rotate', args: ['ID'], synopsis: 'ID', options: {},
    summary: 'new key printed once as {"id","apiKey"}; the previous key stops working at once',
    async run({ positionals }, io) {
      const id = positionals[0];
      const rotated = await withStore((s) => new AccountService(s).rotateKey(id));
      if (!rotated) {
        io.err(`routegate: no account with id ${id}`);
        return EXIT.FAILED;
      }
      io.out(JSON.stringify({ id: rotated.id, apiKey: rotated.apiKey }));
      return EXIT.OK;
    },
  },
  {
    name: 'webhooks rotate-secret', args: ['ID'], synopsis: 'ID', options: {},
    summary: 'new webhook signing secret printed once as {"id","webhookSigningSecret","previousSecretsExpireAt"}',
    details: [
      'Forwarded events are signed with both the new and the previous secrets for 24 hours (two v1 signatures),',
      'so the backend can switch without losing an event; then only with the new one.',
    ],
    async run({ positionals }, io) {
      const id = positionals[0];
      const rotated = await withStore((s, key) => new AccountService(s, key).rotateSigningSecret(id));
      if (!rotated) {
        io.err(`routegate: no account with id ${id}`);
        return EXIT.FAILED;
      }
      io.out(JSON.stringify(rotated));
      return EXIT.OK;
    },
  },
  {
    name: 'webhooks rotate-token', args: ['ID'], synopsis: 'ID [--keep-old-hours N]', options: { 'keep-old-hours': { type: 'string' } },
    summary: 'new webhook token printed as {"id","webhookToken","webhookUrls"}; the old URLs keep working N hours (default 24)',
    details: [
      'Point each gateway at the new webhookUrls within the overlap; --keep-old-hours 0 makes the old URLs (and any',
      'earlier rotation\'s still overlapping) answer 404 at once, for a token that leaked.',
    ],
    async run({ positionals, values }, io) {
      const id = positionals[0];
      const raw = values['keep-old-hours'];
      const hours = raw === undefined ? WEBHOOK_TOKEN_OVERLAP_HOURS : Number(raw);
      if (typeof raw === 'string' && (!/^\d+$/.test(raw) || hours > 720)) throw usage('webhooks rotate-token', '--keep-old-hours needs a whole number of hours from 0 to 720');
      const rotated = await withStoreAsync(async (s, config) => {
        const r = await new AccountService(s).rotateWebhookToken(id, hours);
        return r && { ...r, webhookUrls: webhookUrls(config.publicUrl, r.webhookToken) };
      });
      if (!rotated) {
        io.err(`routegate: no account with id ${id}`);
        return EXIT.FAILED;
      }
      io.out(JSON.stringify({ id: rotated.id, webhookToken: rotated.webhookToken, webhookUrls: rotated.webhookUrls }));
      return EXIT.OK;
    },
  },
  {
    name: 'accounts passthrough', args: ['ID', 'STATE'], synopsis: 'ID on|off', options: {},
    summary: 'compatibility passthrough for the account (operator only; off by default); prints {"id","compatPassthrough"}',
    details: [
      'On: untranslated native paths under /compat/<gateway>/ are sent on to the gateway with the stored credentials,',
      'only those in the gateway\'s allowlist (docs/security.md); payouts, transfers, bill and pix payment, account',
      'and key management never pass. The account\'s own API key cannot change this.',
    ],
    async run({ positionals }, io) {
      const [id, state] = positionals;
      if (state !== 'on' && state !== 'off') throw usage('accounts passthrough', 'the state is on or off');
      const ok = await withStore((s) => new AccountService(s).setCompatPassthrough(id, state === 'on'));
      if (!ok) {
        io.err(`routegate: no account with id ${id}`);
        return EXIT.FAILED;
      }
      io.out(JSON.stringify({ id, compatPassthrough: state === 'on' }));
      return EXIT.OK;
    },
  },
  {
    name: 'operators create', args: [], synopsis: '--email EMAIL [--password-stdin]',
    options: { email: { type: 'string' }, 'password-stdin': { type: 'boolean' } },
    summary: 'a dashboard operator; prints {"id","email"} (and "password" when one was generated)',
    details: [
      'With --password-stdin the password is the first line of standard input (never a command-line argument,',
      'which other users can read in the process list); without it a random password is generated and printed once.',
    ],
    async run({ values }, io) {
      const email = typeof values.email === 'string' ? values.email.trim() : '';
      if (!email || !EMAIL_PATTERN.test(email)) throw usage('operators create', '--email needs a valid e-mail address');
      const given = values['password-stdin'] === true ? fs.readFileSync(0, 'utf8').split(/\r?\n/)[0] : undefined;
      const password = given ?? randomBase62(20);
      try {
        const created = await withStoreAsync((s, config) => new LoginService(s, new SessionService(s, config.sessionTtlMs)).createOperator(email, password));
        io.out(JSON.stringify(given === undefined ? { ...created, password } : created));
        return EXIT.OK;
      } catch (err) {
        if (!(err instanceof RouteGateError)) throw err;
        io.err(`routegate: ${err.message}`);
        return EXIT.FAILED;
      }
    },
  },
  {
    name: 'emulators', args: [], synopsis: '[--port N] [--host H]',
    options: { port: { type: 'string' }, host: { type: 'string' } },
    summary: 'serve every registered gateway\'s emulator under /<gateway id>',
    details: ['--port defaults to 4010 (0 = any free port), --host to 127.0.0.1. Prints one JSON line with the URLs, then runs until Ctrl+C.'],
    async run({ values }, io) {
      const port = values.port === undefined ? 4010 : Number(values.port);
      if (!/^\d+$/.test(String(values.port ?? '4010')) || port > 65535) throw usage('emulators', '--port must be a port number (0 to 65535)');
      const host = typeof values.host === 'string' && values.host ? values.host : '127.0.0.1';
      const { startEmulators } = await import('../sandbox/emulators');
      const { listenOrExplain } = await import('../lib/listen');
      const server = await listenOrExplain(() => startEmulators({ port, host }), { what: 'the emulators', port, host, hint: 'use --port' });
      io.out(JSON.stringify({ emulators: server.url, gateways: GATEWAY_IDS.map((g) => `${server.url}/${g}`) }));
      const stop = () => server.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      return -1; // keep running
    },
  },
  {
    name: 'mappings check', args: [], synopsis: '[--gateway ID]... [--verbose] [--update]',
    options: { gateway: { type: 'string', multiple: true }, verbose: { type: 'boolean' }, update: { type: 'boolean' } },
    summary: 'the folder\'s completeness, every mapping compiled, every fixture run through the money guard; exit 1 on any failure',
    details: [
      'Reads ROUTEGATE_MAPPINGS_DIR (default: the mappings/ folder of the install) and prints which folder it read.',
      'Applies the rule start-up applies: every mapping this version ships, its fixtures and status.json, no file left',
      'unread (each problem says what to copy where). Prints failures only and one summary line; --verbose prints',
      'every fixture and file. A failing fixture shows the expected and actual output as a diff; a syntax error',
      'file:line:column with the line. --update rewrites the expected output of each fixture whose mapping ran and',
      'passed the money guard, after printing its diff (review it with git diff); a guard refusal is never updated.',
    ],
    run: ({ values }, io) => checkMappings(resolveMappingsDir(), io, {
      gateways: gatewaysOption('mappings check', values.gateway), verbose: values.verbose === true, update: values.update === true,
    }),
  },
  {
    name: 'mappings diff', args: [], synopsis: '[--gateway ID]... [--names-only]',
    options: { gateway: { type: 'string', multiple: true }, 'names-only': { type: 'boolean' } },
    summary: 'your mappings folder against the one this version ships: what an upgrade changed, what you changed',
    details: ['Compares ROUTEGATE_MAPPINGS_DIR with the mappings/ folder of the install, file by file ("-" this version, "+" yours).'],
    run: ({ values }, io) => diffMappings(resolveMappingsDir(), io, { gateways: gatewaysOption('mappings diff', values.gateway), namesOnly: values['names-only'] === true }),
  },
  {
    name: 'mappings render', args: ['GATEWAY/NAME'], synopsis: 'GATEWAY/NAME --input FILE [--bindings FILE]',
    options: { input: { type: 'string' }, bindings: { type: 'string' } },
    summary: 'print what one mapping produces for a sample input, through the money guard',
    details: [
      'GATEWAY/NAME is e.g. <gateway>/charge.request. --input is the mapping\'s input as JSON, or a fixture file (its input',
      'and bindings are used). A request whose amounts are not the operation\'s is refused, exit 1, as the service would.',
    ],
    run: ({ values, positionals }, io) => {
      if (typeof values.input !== 'string' || !values.input) throw usage('mappings render', 'missing --input FILE');
      return renderMapping(resolveMappingsDir(), positionals[0], values.input, io, typeof values.bindings === 'string' ? values.bindings : undefined);
    },
  },
  {
    name: 'mappings reload', args: [], synopsis: '[--url URL]',
    options: { url: { type: 'string' } },
    summary: 'ask the running RouteGate to reload its mappings folder (swapped only if every fixture and the guard pass)',
    details: [
      '--url defaults to http://127.0.0.1:$PORT (3000). Sends ROUTEGATE_METRICS_TOKEN as the operator token when set',
      '(without one the service takes the call only from its own machine). The same as `kill -HUP <pid>`. Exit 0 when',
      'the new set serves; exit 1 when it was refused (the running set is kept; the reasons are printed).',
    ],
    run: ({ values }, io) => reloadMappings(typeof values.url === 'string' ? values.url : `http://127.0.0.1:${process.env.PORT?.trim() || '3000'}`, io),
  },
  {
    name: 'docs capabilities', args: [], synopsis: '', options: {},
    summary: 'print the gateways\' capability tables (markdown, generated from the registry)',
    details: ['docs/api.md carries this output between its capability-table markers; a test keeps it current.'],
    run: (_p, io) => {
      io.out(capabilityMarkdown());
      return 0;
    },
  },
];

/** --gateway values as canonical ids; an unknown one is a usage error naming the known ones. */
function gatewaysOption(command: string, value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  const given = (Array.isArray(value) ? value : [value]).map(String);
  return given.map((g) => {
    const id = resolveGatewayId(g);
    if (!id) throw usage(command, `unknown gateway ${g} (gateways: ${GATEWAY_IDS.join(', ')})`);
    return id;
  });
}

/** `mappings reload`: POST /ops/mappings/reload on the running service; prints what it did. */
async function reloadMappings(url: string, io: Io): Promise<number> {
  const token = process.env.ROUTEGATE_METRICS_TOKEN?.trim();
  let res: Response;
  try {
    res = await fetch(`${url.replace(/\/+$/, '')}/ops/mappings/reload`, { method: 'POST', headers: token ? { authorization: `Bearer ${token}` } : {} });
  } catch (err) {
    io.err(`routegate: could not reach RouteGate at ${url} (${(err as Error).cause ? String(((err as Error).cause as Error).message) : (err as Error).message}); is it running? pass --url`);
    return EXIT.FAILED;
  }
  const body = await res.json().catch(() => undefined) as { data?: { reloaded: boolean; version: string; previousVersion?: string; dir: string; problems?: string[]; fixtures?: number }; error?: { message: string } } | undefined;
  if (!res.ok || !body?.data) {
    io.err(`routegate: RouteGate answered ${res.status}: ${body?.error?.message ?? 'no reload result'}`);
    return EXIT.FAILED;
  }
  const r = body.data;
  if (r.reloaded) {
    io.out(`reloaded ${r.dir}: version ${r.previousVersion} -> ${r.version}, ${r.fixtures} fixtures passed`);
    return EXIT.OK;
  }
  io.err(`routegate: reload refused, the running set (version ${r.version}) is kept:`);
  for (const p of r.problems ?? []) io.err(`  ${p}`);
  return EXIT.FAILED;
}

const GROUPS = [...new Set(COMMANDS.map((c) => c.name.split(' ')[0]))];

function line(c: Command): string {
  const left = `${c.name}${c.synopsis ? ` ${c.synopsis}` : ''}`;
  return `  ${left.padEnd(44)} ${c.summary}`;
}

export const USAGE = [
  'usage: routegate <command> [options]',
  '',
  ...COMMANDS.map(line),
  '',
  'Every command takes --help. routegate --version prints the version.',
  'Exit codes: 0 done, 1 the command failed (unknown id, failing fixtures, bad configuration), 2 bad command line.',
  'Environment: ROUTEGATE_DB (./data/routegate.db), ROUTEGATE_MASTER_KEY, ROUTEGATE_MAPPINGS_DIR; see docs/configuration.md.',
].join('\n');

function commandUsage(c: Command): string {
  return [`usage: routegate ${c.name}${c.synopsis ? ` ${c.synopsis}` : ''}`, '', `  ${c.summary}`, ...(c.details ?? []).map((d) => `  ${d}`), '',
    '  -h, --help   show this help'].join('\n');
}

function groupUsage(group: string): string {
  return [`usage: routegate ${group} <command>`, '', ...COMMANDS.filter((c) => c.name.startsWith(`${group} `)).map(line), '',
    `Run routegate ${group} <command> --help for its options.`].join('\n');
}

function usage(name: string, message: string): UsageError {
  return new UsageError(message, commandUsage(COMMANDS.find((c) => c.name === name)!));
}

function version(): string {
  return (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

const isHelp = (a: string | undefined) => a === '--help' || a === '-h';

async function run(argv: string[], io: Io): Promise<number> {
  const [first, second] = argv;
  if (first === undefined) throw new UsageError('no command given', USAGE);
  if (isHelp(first) || first === 'help') {
    const topic = argv.slice(1).join(' ');
    const c = COMMANDS.find((x) => x.name === topic);
    io.out(c ? commandUsage(c) : GROUPS.includes(topic) ? groupUsage(topic) : USAGE);
    return EXIT.OK;
  }
  if (first === '--version' || first === '-V') {
    if (argv.length > 1) throw new UsageError(`unexpected argument: ${argv[1]}`, USAGE);
    io.out(version());
    return EXIT.OK;
  }
  if (first.startsWith('-')) throw new UsageError(`unknown option ${first}`, USAGE);
  const command = COMMANDS.find((c) => c.name === first) ?? COMMANDS.find((c) => c.name === `${first} ${second}`);
  if (!command) {
    if (GROUPS.includes(first)) {
      if (isHelp(second)) {
        io.out(groupUsage(first));
        return EXIT.OK;
      }
      throw new UsageError(second === undefined ? `${first} needs a command` : `unknown command: ${first} ${second}`, groupUsage(first));
    }
    throw new UsageError(`unknown command: ${first}`, USAGE);
  }
  const rest = argv.slice(command.name.split(' ').length);
  const parsed = parseStrict(rest, command.options, command.args, commandUsage(command));
  if (parsed.help) {
    io.out(commandUsage(command));
    return EXIT.OK;
  }
  return command.run(parsed, io);
}

export async function main(argv: string[], io: Io = { out: (l) => process.stdout.write(l + '\n'), err: (l) => process.stderr.write(l + '\n') }): Promise<number> {
  try {
    return await run(argv, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`routegate: ${err.message}\n\n${err.usage}`);
      return EXIT.USAGE;
    }
    if (err instanceof ConfigError || err instanceof MappingLoadError) {
      io.err(`routegate: ${err.message}`);
      return EXIT.FAILED;
    }
    io.err(`routegate: ${(err as Error).message}`);
    return EXIT.FAILED;
  }
}
