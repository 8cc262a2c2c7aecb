// Reading the credentials the gateways authenticate with. An emulator accepts any well-formed credential
// and refuses those containing "invalid" (docs/emulators.md), each in its gateway's own 401 body.

/** The token of `Authorization: Bearer <token>`, or '' when there is none. */
export function bearerToken(header: unknown): string {
  return typeof header === 'string' && /^Bearer\s+/i.test(header) ? header.replace(/^Bearer\s+/i, '').trim() : '';
}

/** The user and password of `Authorization: Basic <base64(user:password)>`, or undefined when malformed. */
export function basicCredentials(header: unknown): { user: string; password: string } | undefined {
  const m = /^Basic\s+(\S+)$/i.exec(typeof header === 'string' ? header : '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** The first value of a header that may repeat. */
export function headerValue(header: string | string[] | undefined): string | undefined {
  return Array.isArray(header) ? header[0] : header;
}
