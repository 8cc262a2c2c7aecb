import type { FastifyRequest } from 'fastify';
import { GATEWAYS } from '../gateways/registry';
import { censorer } from './censor';
import { maskSecret } from './mask';

/**
 * Where secrets may sit in a logged object (pino's redact path syntax): API keys, gateway credentials and card data
 * never reach a log line. `req`, `res` and `err` are written through their serializers, which keep no headers
 * (requestSerializer and responseSerializer below; pino's error serializer copies the error's own fields, which
 * these paths cover).
 */
export const REDACT_PATHS = [
  'headers["x-api-key"]', 'headers.authorization',
  'credentials', '*.credentials', 'body.credentials',
  '*.creditCard.number', '*.creditCard.cvv', '*.creditCard.token', 'creditCard.number', 'creditCard.cvv', 'creditCard.token',
  '*.card.number', '*.card.cvv', '*.card.security_code', '*.card.encrypted',
  'apiKeyPlain',
  // Dashboard forms and cookies: passwords, CSRF tokens, invitation tokens and session cookies.
  'headers.cookie', 'headers["set-cookie"]',
  'password', '*.password', 'currentPassword', '*.currentPassword', '_csrf', '*._csrf', 'token', '*.token',
  // Every secret credential field any gateway declares, wherever it sits in a logged object.
  ...[...new Set(GATEWAYS.flatMap((g) => Object.entries(g.credentials).filter(([, f]) => f.secret).map(([name]) => name)))].flatMap((name) => [name, `*.${name}`]),
];

/**
 * A URL fit for a log line: the path, and the query string replaced whole. A key sent in the query can sit
 * under any name, in any case, percent-encoded (`?token=`, `?api%5Fkey=`), so no list of names is safe;
 * no route of ours needs its query in the log to be understood.
 */
export function safeUrl(url: string): string {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  // A webhook receiver's URL carries the account's webhook token: masked like a secret (wh_…last four).
  const shown = path.includes('wh_') ? path.replace(WEBHOOK_TOKEN_IN_PATH, (token) => maskSecret(token)) : path;
  return q === -1 ? shown : `${shown}?[REDACTED]`;
}

const WEBHOOK_TOKEN_IN_PATH = /wh_[^/?#]*/g;

/**
 * A client's `x-request-id` is bound to every log line of its request, so one holding an API key is not
 * taken; nor is one absent or malformed. The caller then generates one.
 */
export function clientRequestId(given: unknown): string | undefined {
  if (typeof given !== 'string' || !/^[\w.:-]{1,128}$/.test(given)) return undefined;
  return /tk_[A-Za-z0-9]{32}/.test(given) ? undefined : given;
}

export const requestSerializer = (req: FastifyRequest) => ({
  method: req.method,
  url: safeUrl(req.url),
  remoteAddress: req.ip,
});

export const responseSerializer = (reply: { statusCode: number }) => ({ statusCode: reply.statusCode });

/** Every log line's object, and every request logger's bindings, with the REDACT_PATHS censored (src/lib/censor.ts). */
export const censorSecrets = censorer(REDACT_PATHS);
