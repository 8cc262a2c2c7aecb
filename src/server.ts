import closeWithGrace from 'close-with-grace';
import { loadConfig, ConfigError } from './config';
import { buildApp } from './app';
import { MappingLoadError } from './mapping/loader';
import { listenOrExplain, ListenError } from './lib/listen';
import { checkFixturesAtStart, MappingFixturesError } from './mapping/startup-check';

/** Process entry: configuration, listen, graceful shutdown. No logic of its own. */
export async function startServer(env: NodeJS.ProcessEnv = process.env, argv: string[] = process.argv.slice(2)) {
  const config = loadConfig(env);
  // A mapping that fails its fixtures would send wrong payloads to a gateway: refuse, unless overridden.
  const allowFailing = config.allowFailingMappings || argv.includes('--allow-failing-mappings');
  const failing = await checkFixturesAtStart(config.mappingsDir, allowFailing);
  const app = await buildApp({ config });
  if (failing.length) {
    app.log.error({ failingFixtures: failing.map((f) => f.file) },
      `STARTED WITH ${failing.length} FAILING MAPPING FIXTURE(S) because of the emergency override; charges through these mappings may be wrong: run npx routegate mappings check`);
  }
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    await app.close();
  });
  try {
    await listenOrExplain(() => app.listen({ port: config.port, host: config.host }),
      { what: 'RouteGate', port: config.port, host: config.host, hint: 'is RouteGate or the sandbox already running? set PORT' });
  } catch (err) {
    await app.close();
    throw err;
  }
  // A parent that started this process with an IPC channel (the tests, with PORT=0) learns the port it got, instead
  // of picking a free port and racing other processes for it.
  const address = app.server.address();
  if (process.send && address && typeof address === 'object') process.send({ routegate: 'listening', port: address.port });
  return app;
}

if (require.main === module) {
  startServer().catch((err) => {
    const known = err instanceof ConfigError || err instanceof MappingLoadError || err instanceof ListenError || err instanceof MappingFixturesError;
    process.stderr.write(`routegate: ${known ? err.message : (err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
