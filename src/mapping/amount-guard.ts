import { fromUnit, toUnit, type AmountUnit } from './functions';
import type { WireSettings } from '../gateways/types';

// The money guard. Fixtures cannot protect a money unit: an operator who edits a mapping edits its fixtures too.
// So each gateway declares in code (src/gateways/<id>/amounts.ts, referenced by its descriptor) where its wire
// requests carry amounts and in which unit; every request mapping's output is checked against the operation's
// amount converted by toUnit, the one conversion, before it can be sent. No mapping file can change either side.

/** One request mapping's amounts: which operation amount it must carry, and where. */
export interface RequestAmountRule {
  /**
   * The operation's amount in cents, read from the input the adapter built (never from the mapping's output);
   * null: this request names no amount (a full capture, a cancel), and none of `fields` may be rendered.
   */
  cents(input: any): number | null;
  /** Where the request carries it: dotted paths with `[n]` or `[*]` for arrays (`items[*].amount`, `amount.value`). */
  fields: readonly string[];
  /** false: the amount may be left out (the gateway then takes the whole); default true when cents is not null. */
  required?: boolean;
  /**
   * Split shares: every value at `fields` must be one of the shares RouteGate computed (`cents`, from the input),
   * in the same unit; none may be rendered when there are none.
   */
  shares?: { fields: readonly string[]; cents(input: any): number[] };
}

/** The wire unit: fixed, or a deployment setting the adapter passes to mappings as `$amountUnit`. */
export type AmountUnitSource = AmountUnit | { binding: 'amountUnit'; fromWire(wire?: WireSettings): AmountUnit };

export interface AmountDeclaration {
  unit: AmountUnitSource;
  /** Keyed by mapping name: charge.request, capture.request, refund.request, cancel.request... */
  requests: Readonly<Record<string, RequestAmountRule>>;
  /**
   * Where the gateway's answer to a create reports the amount it took (the first present one counts); `applies`
   * false: this answer reports a part of it (an installment) and is not compared.
   */
  answer: { fields: readonly string[]; applies?(body: any): boolean };
}

/** A rendered request whose amount is not the operation's: it is never sent. */
export class MappingAmountError extends Error {
  constructor(
    readonly gateway: string,
    readonly mapping: string,
    readonly field: string,
    /** The operation's amount in cents; null when it names none. */
    readonly cents: number | null,
    readonly expected: unknown,
    readonly rendered: unknown,
    readonly unit: string,
    readonly detail: string,
  ) {
    super(`MAPPING_AMOUNT_MISMATCH ${gateway}/${mapping}: ${field} ${detail}: expected ${JSON.stringify(expected) ?? 'nothing'}, rendered ${JSON.stringify(rendered) ?? 'nothing'} (${describeExpected(mapping, cents, unit)}); the request is never sent`);
    this.name = 'MappingAmountError';
  }

  /** Why `expected` is what it is, for the public message. */
  get why(): string {
    return describeExpected(this.mapping, this.cents, this.unit);
  }
}

function describeExpected(mapping: string, cents: number | null, unit: string): string {
  const operation = mapping.replace(/\.request$/, '');
  return cents === null ? `the ${operation} names no amount` : `the ${operation} amount of ${cents} cents, sent ${unitWord(unit)}`;
}

const unitWord = (unit: string) => (unit === 'major' ? 'in reais' : unit === 'minor' ? 'in cents' : `(unit ${unit})`);

/** `a.b[0].c`, `items[*].amount` -> segments; `*` visits every element. */
function segments(path: string): string[] {
  return path.replace(/\[(\d+|\*)\]/g, '.$1').split('.').filter((s) => s !== '');
}

/** Every value present at `path` in `value` (undefined ones left out). */
export function valuesAt(value: unknown, path: string): unknown[] {
  let current: unknown[] = [value];
  for (const seg of segments(path)) {
    const next: unknown[] = [];
    for (const v of current) {
      if (v === null || typeof v !== 'object') continue;
      if (seg === '*') {
        if (Array.isArray(v)) next.push(...v);
      } else if (Array.isArray(v) && /^\d+$/.test(seg)) {
        next.push(v[Number(seg)]);
      } else if (!Array.isArray(v) && Object.hasOwn(v, seg)) {
        next.push((v as Record<string, unknown>)[seg]);
      }
    }
    current = next.filter((x) => x !== undefined);
  }
  return current;
}

/** The unit a request is checked in: the fixed one, or the `$amountUnit` binding (which only adapter code or a fixture sets). */
export function requestUnit(decl: AmountDeclaration, bindings: Record<string, unknown> | undefined): AmountUnit | undefined {
  if (typeof decl.unit === 'string') return decl.unit;
  const bound = bindings?.[decl.unit.binding];
  return bound === 'minor' || bound === 'major' ? bound : undefined;
}

/** The unit the gateway answers in, from the deployment's wire settings. */
export function answerUnit(decl: AmountDeclaration, wire?: WireSettings): AmountUnit {
  return typeof decl.unit === 'string' ? decl.unit : decl.unit.fromWire(wire);
}

/**
 * Throws MappingAmountError when `rendered` (what `mapping` produced for `input`) carries an amount other than
 * the operation's, in the declared unit. Mappings without a rule are not money requests (customer.request...).
 */
export function guardRendered(
  gateway: string, decl: AmountDeclaration | undefined, mapping: string, input: unknown, bindings: Record<string, unknown> | undefined, rendered: unknown,
): void {
  const rule = decl?.requests[mapping];
  if (!decl || !rule) return;
  const cents = rule.cents(input ?? {});
  const unit = requestUnit(decl, bindings);
  const fail = (field: string, expected: unknown, got: unknown, detail: string) => {
    throw new MappingAmountError(gateway, mapping, field, cents ?? null, expected, got, unit ?? 'unbound', detail);
  };
  if (cents === null || cents === undefined) {
    for (const field of rule.fields) {
      const found = valuesAt(rendered, field).filter((v) => v !== null);
      if (found.length) fail(field, undefined, found[0], 'carries an amount where the operation names none');
    }
    return;
  }
  if (!unit) fail(rule.fields[0], cents, undefined, 'cannot be checked: the amount unit is not bound ($amountUnit)');
  const expected = toUnit(cents, unit);
  let seen = 0;
  for (const field of rule.fields) {
    for (const v of valuesAt(rendered, field)) {
      seen++;
      if (typeof v !== 'number' || v !== expected) fail(field, expected, v, 'is not the operation\'s amount');
    }
  }
  if (seen === 0 && rule.required !== false) fail(rule.fields.join(' or '), expected, undefined, 'is missing: the request carries no amount');
  if (rule.shares) {
    const shares = rule.shares.cents(input ?? {}).map((c) => toUnit(c, unit));
    for (const field of rule.shares.fields) {
      for (const v of valuesAt(rendered, field)) {
        if (typeof v !== 'number' || !shares.includes(v)) fail(field, shares.length ? shares : undefined, v, 'is not one of the split shares RouteGate computed');
      }
    }
  }
}

/** The amount a gateway's answer reports, in cents; undefined when none of the declared fields is there. */
export function reportedCents(decl: AmountDeclaration, body: unknown, wire?: WireSettings): number | undefined {
  if (decl.answer.applies && !decl.answer.applies(body ?? {})) return undefined;
  const unit = answerUnit(decl, wire);
  for (const field of decl.answer.fields) {
    const [value] = valuesAt(body, field);
    if (value !== undefined && value !== null) return fromUnit(value, unit);
  }
  return undefined;
}
