import escapeHtml from 'escape-html';

/** Markup that is already safe: made only by `html` (or `raw` for constant strings of this code). */
export class Html {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

export type Renderable = Html | string | number | boolean | null | undefined | Renderable[];

function render(v: Renderable): string {
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === null || v === undefined || v === false) return '';
  return escapeHtml(String(v));
}

/**
 * Tagged template for every page: each interpolated value is HTML-escaped (escape-html: & < > " '), unless it is
 * itself `html` output; arrays are joined; null, undefined and false render nothing. Attribute values must be
 * quoted in the template, so an escaped value can never leave its attribute.
 */
export function html(strings: TemplateStringsArray, ...values: Renderable[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

/** A constant piece of markup written in this code (never data). */
export function raw(markup: string): Html {
  return new Html(markup);
}
