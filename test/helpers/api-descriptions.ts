/**
 * Checks payloads against a gateway's own machine-readable API description
 * (an OpenAPI document, or a vendored subset of one kept under
 * `test/conformance/descriptions/`). The gateways' descriptions, not ours,
 * are the judge of what RouteGate sends and what its compatibility mode answers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { parse as parseYaml } from 'yaml';

export interface DescriptionSource {
  /** Who wrote the description, e.g. "Mercado Pago (mercadopago/devsite-docs)". */
  readonly author: string;
  /** Where it came from: repository and path, or package and file. */
  readonly origin: string;
  /** The version or commit the subset was cut from. */
  readonly version: string;
}

export interface ApiDescription {
  readonly source: DescriptionSource;
  /** Problems of `value` against `#/components/schemas/<name>`, as readable lines; empty when it conforms. */
  problems(schemaName: string, value: unknown): string[];
}

/** Test sources compile to dist/test/helpers; descriptions stay beside the sources. */
export const DESCRIPTIONS_DIR = join(__dirname, '..', '..', '..', 'test', 'conformance', 'descriptions');

/**
 * Loads `<file>` (JSON or YAML, an OpenAPI document with `components.schemas`)
 * from the descriptions folder. OpenAPI's `nullable` is understood; vendor
 * extensions (`x-...`) and unknown formats are ignored rather than fatal.
 */
export function loadDescription(file: string, source: DescriptionSource): ApiDescription {
  const text = readFileSync(join(DESCRIPTIONS_DIR, file), 'utf8');
  const document = (file.endsWith('.json') ? JSON.parse(text) : parseYaml(text)) as Record<string, unknown>;
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true, discriminator: false });
  addFormats(ajv);
  for (const unknownFormat of ['unix-time', 'decimal', 'int32', 'int64', 'float', 'double', 'binary', 'byte', 'password']) {
    ajv.addFormat(unknownFormat, true);
  }
  const id = `description:${file}`;
  ajv.addSchema({ ...document, $id: id });
  return {
    source,
    problems(schemaName, value) {
      const validate = ajv.getSchema(`${id}#/components/schemas/${schemaName}`);
      if (!validate) throw new Error(`${file} describes no schema named ${schemaName}`);
      if (validate(value) === true) return [];
      return (validate.errors ?? []).map(describeError);
    },
  };
}

function describeError(error: ErrorObject): string {
  const where = error.instancePath === '' ? '(root)' : error.instancePath;
  const params = JSON.stringify(error.params);
  return `${where} ${error.message ?? 'is invalid'} ${params}`;
}
