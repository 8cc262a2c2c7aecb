import { Agent, request } from 'undici';

export interface Page { status: number; headers: Record<string, string | string[] | undefined>; text: string; location?: string }

const agents = new Map<string, Agent>();

/**
 * A browser-like HTTP client for the dashboard over real HTTP: keeps the session cookie, reads each page's CSRF
 * token and posts urlencoded forms. Redirects are not followed, so tests see them.
 */
export class DashboardClient {
  cookie = '';
  csrf = '';

  constructor(readonly base: string, readonly localAddress?: string) {}

  async get(path: string): Promise<Page> {
    return this.send('GET', path);
  }

  /** Posts `form` with this client's latest CSRF token unless `csrf: false` (or another token) is given. */
  async post(path: string, form: Record<string, string | string[]> = {}, opts: { csrf?: string | false } = {}): Promise<Page> {
    const body = new URLSearchParams();
    const token = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (token) body.append('_csrf', token);
    for (const [k, v] of Object.entries(form)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
    return this.send('POST', path, body.toString());
  }

  /** Signs in: loads the form (session + CSRF), posts it; true when the service redirected into the dashboard. */
  async login(email: string, password: string): Promise<Page> {
    await this.get('/dashboard/login');
    return this.post('/dashboard/login', { email, password });
  }

  private async send(method: 'GET' | 'POST', path: string, body?: string): Promise<Page> {
    const headers: Record<string, string> = {};
    if (this.cookie) headers.cookie = this.cookie;
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    let dispatcher: Agent | undefined;
    if (this.localAddress) {
      dispatcher = agents.get(this.localAddress) ?? new Agent({ localAddress: this.localAddress } as never);
      agents.set(this.localAddress, dispatcher);
    }
    const res = await request(this.base + path, { method, headers, body, dispatcher });
    const text = await res.body.text();
    const setCookie = res.headers['set-cookie'];
    for (const c of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) {
      const pair = c.split(';')[0];
      if (pair.startsWith('rg_session=')) this.cookie = pair.endsWith('=') ? '' : pair;
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(text);
    if (token) this.csrf = token[1];
    const location = res.headers.location;
    return { status: res.statusCode, headers: res.headers, text, location: Array.isArray(location) ? location[0] : location };
  }
}
