import type { FastifyRequest } from 'fastify';
import { KEY_QUERY_PARAMS } from '../auth/plugin';

/** pino redact paths: API keys, gateway credentials and card data never reach a log line. */
export const REDACT_PATHS = [
  'req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie',
  'headers["x-api-key"]', 'headers.authorization',
  'credentials', '*.credentials', 'body.credentials',
  '*.creditCard.number', '*.creditCard.cvv', '*.creditCard.token', 'creditCard.number', 'creditCard.cvv', 'creditCard.token',
  '*.card.number', '*.card.cvv', '*.card.security_code', '*.card.encrypted',
  'secretKey', 'apiKey', 'accessToken', 'token', 'webhookSecret', 'apiKeyPlain',
];

const KEY_PARAM_RE = new RegExp(`([?&](?:${KEY_QUERY_PARAMS.map((p) => p.replace(/[-]/g, '\\-')).join('|')})=)[^&#]*`, 'gi');

/** A URL fit for a log line: a key sent in the query string is replaced before anything is written. */
export function safeUrl(url: string): string {
  return url.replace(KEY_PARAM_RE, '$1[REDACTED]');
}

export const requestSerializer = (req: FastifyRequest) => ({
  method: req.method,
  url: safeUrl(req.url),
  remoteAddress: req.ip,
});
