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

  /**
   * Signs in: loads the form (session + CSRF), posts it and, like a browser, follows the redirect (the new
   * session has a new CSRF secret). Answers the sign-in post itself.
   */
  async login(email: string, password: string): Promise<Page> {
    await this.get('/dashboard/login');
    const res = await this.post('/dashboard/login', { email, password });
    if (res.status === 303 && res.location) await this.follow(res.location);
    return res;
  }

  /** GET a redirect target and the one after it (/dashboard redirects to the user's first page). */
  async follow(location: string): Promise<Page> {
    const page = await this.get(location);
    return page.status === 303 && page.location ? this.get(page.location) : page;
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
