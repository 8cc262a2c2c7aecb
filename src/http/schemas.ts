import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { SCHEMAS_DIR } from '../lib/paths';
import type { FieldError, RouteGateError } from '../errors';
import { withGatewaySchemas, type JsonSchema } from './gateway-schemas';
import { fieldErrors } from './validation-messages';

export { fieldErrors } from './validation-messages';

export type { JsonSchema };

let cache: JsonSchema[] | undefined;

/** schemas/*.json, each with an $id; the one source for validation, serialization and /docs. */
export function loadSchemas(dir: string = SCHEMAS_DIR): JsonSchema[] {
  if (cache && dir === SCHEMAS_DIR) return cache;
  const schemas = withGatewaySchemas(fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => {
    const schema = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as JsonSchema;
    if (!schema.$id) throw new Error(`schema ${f} has no $id`);
    return schema;
  }));
  if (dir === SCHEMAS_DIR) cache = schemas;
  return schemas;
}

// @brazilian-utils' per-function entry points (its package `exports`), not its main bundle: that is a 1.2 MB UMD file
// with every dataset the package ships (municipalities, banks, holidays...), 16 MB of resident memory for two
// check-digit functions. `require`, as TypeScript's "node" module resolution does not read `exports` maps.
/* eslint-disable @typescript-eslint/no-require-imports */
const { isValidCpf } = require('@brazilian-utils/brazilian-utils/is-valid-cpf') as { isValidCpf(value: string): boolean };
const { isValidCnpj } = require('@brazilian-utils/brazilian-utils/is-valid-cnpj') as { isValidCnpj(value: string): boolean };
/* eslint-enable @typescript-eslint/no-require-imports */

/** CPF or CNPJ with valid check digits (@brazilian-utils, not hand-written): the real gateways check them too. */
export function validTaxId(value: string): boolean {
  // A wrong length is the pattern's error to report; this format only judges 11 or 14 digits.
  if (!/^(\d{11}|\d{14})$/.test(value)) return true;
  return value.length === 11 ? isValidCpf(value) : isValidCnpj(value);
}

/**
 * Ajv options shared with fastify's validator: report every error, never coerce or strip silently. `verbose` gives
 * each error its schema, which validation-messages.ts reads to write sentences (`amount must be at least 100 (cents)`).
 */
export const AJV_OPTIONS = {
  allErrors: true, coerceTypes: false, removeAdditional: false, useDefaults: true, strict: false, verbose: true,
  formats: { 'br-tax-id': { type: 'string', validate: validTaxId } },
} as const;

export function registerSchemas(app: FastifyInstance): void {
  for (const schema of loadSchemas()) app.addSchema(schema);
}

/** Validation outside route schemas (credentials per gateway), with the same Ajv options. */
export class SchemaValidator {
  private readonly ajv = new Ajv(AJV_OPTIONS);
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(schemas: JsonSchema[] = loadSchemas()) {
    addFormats(this.ajv);
    for (const s of schemas) this.ajv.addSchema(s);
  }

  /** Throws `invalid(errors)`, field errors prefixed by `prefix` (e.g. "credentials"). */
  assert(id: string, data: unknown, prefix: string, invalid: (errors: FieldError[]) => RouteGateError): void {
    let fn = this.compiled.get(id);
    if (!fn) {
      fn = this.ajv.getSchema(id);
      if (!fn) throw new Error(`unknown schema ${id}`);
      this.compiled.set(id, fn);
    }
    if (!fn(data)) {
      throw invalid(fieldErrors(fn.errors ?? [], prefix));
    }
  }
}
