import type { IncomingHttpHeaders } from 'node:http';

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/**
 * The RouteGate key wherever a gateway's SDK puts its own key: `Authorization: Bearer <key>`, HTTP
 * Basic with the key as user and an empty password, the `access_token` header, or RouteGate's own `x-api-key`
 * (docs/compatibility.md lists which SDK sends which). undefined when none is sent.
 */
export function nativeKey(headers: IncomingHttpHeaders): string | undefined {
  const apiKey = first(headers['x-api-key']);
  if (apiKey) return apiKey;
  const authorization = first(headers.authorization)?.trim();
  if (authorization) {
    const [scheme, ...rest] = authorization.split(/\s+/);
    const value = rest.join(' ');
    if (/^bearer$/i.test(scheme)) return value;
    if (/^basic$/i.test(scheme)) {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      return decoded.split(':')[0];
    }
    return authorization;
  }
  const accessToken = first(headers.access_token as string | string[] | undefined);
  return accessToken || undefined;
}
