import Fastify from 'fastify';
import proxy from '@fastify/http-proxy';
import { listenAndPrintUrl, runServer } from './listen';

/** (b) of the bench: a plain @fastify/http-proxy pass-through to the emulators, nothing else. */
async function main(): Promise<void> {
  const upstream = process.argv[2];
  if (!upstream) throw new Error('usage: proxy <upstream-url>');
  const app = Fastify({ logger: false });
  await app.register(proxy, { upstream });
  await listenAndPrintUrl(app);
}

runServer(main);
