import type { FastifyInstance } from 'fastify';

/** Listen on a free local port and print `{"url": ...}` as the first stdout line, which the bench reads. */
export async function listenAndPrintUrl(app: FastifyInstance): Promise<void> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` }) + '\n');
}

/** Run a bench server's main; a failure to start is printed and ends the process. */
export function runServer(main: () => Promise<void>): void {
  main().catch((err) => {
    process.stderr.write(`${err.stack ?? err}\n`);
    process.exit(1);
  });
}
