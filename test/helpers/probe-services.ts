import { probeServices } from './services';

// `node dist/test/helpers/probe-services.js` prints which test services are missing, as JSON (see services.ts).
probeServices().then(
  (probe) => process.stdout.write(`${JSON.stringify(probe)}\n`),
  (err) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
