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
  const app = await buildApp({ config, failingFixtures: failing.map((f) => f.file) });
  if (failing.length) {
    app.log.error({ failingFixtures: failing.map((f) => f.file) },
      `STARTED WITH ${failing.length} FAILING MAPPING FIXTURE(S) because of the emergency override; charges through these mappings may be wrong: run npx routegate mappings check`);
  }
  // SIGHUP: reload the mappings folder (compile, completeness, every fixture and the money guard; swap only if all pass).
  const onHangup = () => {
    app.mappingState.reload().then((result) => {
      if (result.reloaded) app.log.info({ reload: result }, `mappings reloaded on SIGHUP: version ${result.version}`);
      else app.log.error({ reload: result }, `mappings reload on SIGHUP refused, the running set is kept: ${result.problems.join('; ')}`);
    }, (err) => app.log.error({ err }, 'mappings reload on SIGHUP failed; the running set is kept'));
  };
  process.on('SIGHUP', onHangup);
  app.addHook('onClose', async () => {
    process.off('SIGHUP', onHangup);
  });
  // SIGHUP is the mapping reload above, not a shutdown.
  closeWithGrace({ delay: 10_000, skip: ['SIGHUP'] }, async ({ signal, err }) => {
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
    const message = err instanceof MappingLoadError ? `refusing to start: ${err.message}` : err.message;
    process.stderr.write(`routegate: ${known ? message : (err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
