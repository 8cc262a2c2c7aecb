import Fastify from 'fastify';
import proxy from '@fastify/http-proxy';

/** (b) of the bench: a plain @fastify/http-proxy pass-through to the emulators, nothing else. */
async function main(): Promise<void> {
  const upstream = process.argv[2];
  if (!upstream) throw new Error('usage: proxy <upstream-url>');
  const app = Fastify({ logger: false });
  await app.register(proxy, { upstream });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` }) + '\n');
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
