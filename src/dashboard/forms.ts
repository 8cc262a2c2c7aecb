import { RouteGateError } from '../errors';
import { html, type Html, type Renderable } from './html';

/** Messages by form field, plus the ones that belong to the whole form. */
export interface FormErrors {
  fields: Record<string, string>;
  form: string[];
}

export const NO_ERRORS: FormErrors = { fields: {}, form: [] };

/**
 * A service's error as messages next to the fields it names (details.errors from the catalogue or from schema
 * validation), under the form otherwise. `fieldOf` maps an error's field path to the form's input name.
 */
export function formErrors(err: unknown, fieldOf: (field: string) => string | undefined = (f) => f): FormErrors {
  if (!(err instanceof RouteGateError)) throw err;
  const out: FormErrors = { fields: {}, form: [] };
  for (const e of err.details?.errors ?? []) {
    const name = fieldOf(e.field);
    if (name && !out.fields[name]) out.fields[name] = `${labelOf(e.field)} ${e.message}`;
    else if (!name) out.form.push(`${e.field} ${e.message}`);
  }
  if (!err.details?.errors?.length) out.form.push(err.message);
  return out;
}

function labelOf(field: string): string {
  return field.split('.').pop() ?? field;
}

export interface FieldOptions {
  name: string;
  label: string;
  type?: string;
  value?: string | null;
  errors: FormErrors;
  required?: boolean;
  autocomplete?: string;
  hint?: Renderable;
  placeholder?: string;
  /** The keyboard a phone shows (`decimal` for amounts). */
  inputmode?: string;
}

/** A labelled input with its error message right under it (aria-describedby ties them for screen readers). */
export function field(o: FieldOptions): Html {
  const id = `f-${o.name.replace(/[^\w-]/g, '-')}`;
  const error = o.errors.fields[o.name];
  return html`<div class="field${error ? ' has-error' : ''}">
  <label for="${id}">${o.label}</label>
  <input id="${id}" name="${o.name}" type="${o.type ?? 'text'}" value="${o.value ?? ''}"${o.required ? html` required` : ''}${o.autocomplete ? html` autocomplete="${o.autocomplete}"` : ''}${o.placeholder ? html` placeholder="${o.placeholder}"` : ''}${o.inputmode ? html` inputmode="${o.inputmode}"` : ''}${error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}>
  ${o.hint ? html`<p class="hint">${o.hint}</p>` : ''}
  ${error ? html`<p class="error" id="${id}-error" role="alert">${error}</p>` : ''}
</div>`;
}

export function select(o: { name: string; label: string; options: Array<{ value: string; label: string }>; value: string | null; errors: FormErrors; hint?: Renderable }): Html {
  const id = `f-${o.name}`;
  const error = o.errors.fields[o.name];
  return html`<div class="field${error ? ' has-error' : ''}">
  <label for="${id}">${o.label}</label>
  <select id="${id}" name="${o.name}"${error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}>
    ${o.options.map((opt) => html`<option value="${opt.value}"${opt.value === (o.value ?? '') ? html` selected` : ''}>${opt.label}</option>`)}
  </select>
  ${o.hint ? html`<p class="hint">${o.hint}</p>` : ''}
  ${error ? html`<p class="error" id="${id}-error" role="alert">${error}</p>` : ''}
</div>`;
}

export function formMessages(errors: FormErrors): Html {
  return errors.form.length ? html`<div class="alert error" role="alert">${errors.form.map((m) => html`<p>${m}</p>`)}</div>` : html``;
}

/** The hidden CSRF field every form carries. */
export function csrfField(token: string): Html {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

/** A form that is one button (activate, delete, refund...): POST with the CSRF token. */
export function buttonForm(action: string, label: string, csrf: string, o: { style?: string; hidden?: Record<string, string>; confirm?: string } = {}): Html {
  return html`<form method="post" action="${action}" class="inline"${o.confirm ? html` data-confirm="${o.confirm}"` : ''}>${csrfField(csrf)}${Object.entries(o.hidden ?? {}).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}<button type="submit" class="${o.style ?? 'secondary'}">${label}</button></form>`;
}
