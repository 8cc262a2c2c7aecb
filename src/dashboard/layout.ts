import { html, type Html } from './html';
import { csrfField } from './forms';
import type { DashboardUser } from './context';

export interface NavEntry { label: string; path: string; audience: 'operator' | 'owner' }

export interface LayoutOptions {
  title: string;
  body: Html;
  user: DashboardUser | null;
  nav: NavEntry[];
  currentPath: string;
  csrf: string;
  flash?: string;
}

/** The page shell: header with navigation and sign-out, then the page. Styles and script are static files (strict CSP). */
export function layout(o: LayoutOptions): Html {
  const entries = o.user ? o.nav.filter((n) => n.audience === o.user!.kind) : [];
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${o.title} · RouteGate</title>
<link rel="icon" href="/dashboard/static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/dashboard/static/dashboard.css">
<script src="/dashboard/static/dashboard.js" defer></script>
</head>
<body>
<header class="top">
  <a class="brand" href="/dashboard">RouteGate</a>
  ${o.user ? html`<nav aria-label="Main">
    ${entries.map((n) => html`<a href="${n.path}"${o.currentPath.startsWith(n.path) ? html` aria-current="page"` : ''}>${n.label}</a>`)}
  </nav>
  <div class="who">
    <span class="email">${o.user.account ? html`${o.user.account.name} · ` : ''}${o.user.email}</span>
    <a href="/dashboard/password">Password</a>
    <form method="post" action="/dashboard/logout" class="inline">${csrfField(o.csrf)}<button type="submit" class="link">Sign out</button></form>
  </div>` : ''}
</header>
<main>
  ${o.flash ? html`<div class="alert ok" role="status">${o.flash}</div>` : ''}
  ${o.body}
</main>
</body>
</html>`;
}

// Money and time as a Brazilian merchant reads them (src/dashboard/locale.ts).
export { formatMoney, formatDate } from './locale';
