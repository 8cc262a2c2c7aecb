import { randomUUID } from 'node:crypto';
import type { Store } from '../store';
import type { CoproducerRecord } from '../store/coproducers';
import { nowIso } from '../store/db';
import { GATEWAY_IDS, resolveGatewayId } from '../gateways/registry-ids';
import { fieldSummary, rgError, type FieldError } from '../errors';
import { recipientIdProblem } from './recipients';

export interface CoproducerInput { email: string; name: string; recipients?: Record<string, string> }
export interface CoproducerPatch { email?: string; name?: string; recipients?: Record<string, string | null> }

/** The public shape: recipients keyed by canonical gateway id. */
export function coproducerView(c: CoproducerRecord): Record<string, unknown> {
  return { id: c.id, email: c.email, name: c.name, recipients: c.recipients, createdAt: c.createdAt, updatedAt: c.updatedAt };
}

function invalid(errors: FieldError[]): never {
  throw rgError('INVALID_REQUEST', { fields: fieldSummary(errors) }, { details: { errors } });
}

/**
 * Recipients as sent (any accepted spelling of a gateway id) -> keyed by canonical id, each id checked against
 * that gateway's recipient format. `null` (PATCH only) removes the gateway's recipient.
 */
function canonicalRecipients<V extends string | null>(input: Record<string, V>): Record<string, V> {
  const errors: FieldError[] = [];
  const out: Record<string, V> = {};
  for (const [key, value] of Object.entries(input)) {
    const gateway = resolveGatewayId(key);
    const field = `recipients.${key}`;
    if (!gateway) {
      errors.push({ field, message: `is not a gateway: use one of ${GATEWAY_IDS.join(', ')}` });
      continue;
    }
    if (Object.hasOwn(out, gateway)) {
      errors.push({ field, message: `names ${gateway} a second time` });
      continue;
    }
    const problem = value === null ? undefined : recipientIdProblem(gateway, value);
    if (problem) errors.push({ field, message: problem });
    out[gateway] = (typeof value === 'string' ? value.trim() : value) as V;
  }
  if (errors.length) invalid(errors);
  return out;
}

function isUniqueViolation(err: unknown): boolean {
  // SQLite's code, or PostgreSQL's SQLSTATE for unique_violation.
  const code = (err as { code?: string })?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505';
}

/** Coproducers CRUD: e-mail unique per account (case-insensitive), recipient ids checked per gateway. */
export class CoproducerService {
  constructor(private readonly store: Store) {}

  private async taken(accountId: string, email: string): Promise<never> {
    const other = await this.store.coproducers.byEmail(accountId, email);
    throw rgError('COPRODUCER_EMAIL_TAKEN', { email, id: other?.id ?? 'unknown' });
  }

  async create(accountId: string, input: CoproducerInput): Promise<CoproducerRecord> {
    const now = nowIso();
    const record: CoproducerRecord = {
      id: `cop_${randomUUID().replace(/-/g, '')}`, accountId, email: input.email.trim().toLowerCase(), name: input.name.trim(),
      recipients: canonicalRecipients(input.recipients ?? {}), createdAt: now, updatedAt: now,
    };
    if (await this.store.coproducers.byEmail(accountId, record.email)) await this.taken(accountId, record.email);
    try {
      await this.store.coproducers.insert(record);
    } catch (err) {
      if (isUniqueViolation(err)) await this.taken(accountId, record.email); // a concurrent create of the same e-mail
      throw err;
    }
    return record;
  }

  async get(accountId: string, id: string): Promise<CoproducerRecord> {
    const c = await this.store.coproducers.get(accountId, id);
    if (!c) throw rgError('COPRODUCER_NOT_FOUND', { id });
    return c;
  }

  /** Only the fields given change; `recipients` adds, replaces (or, with null, removes) one gateway's id at a time. */
  async update(accountId: string, id: string, patch: CoproducerPatch): Promise<CoproducerRecord> {
    const current = await this.get(accountId, id);
    const email = patch.email?.trim().toLowerCase();
    if (email && email !== current.email && await this.store.coproducers.byEmail(accountId, email)) await this.taken(accountId, email);
    let recipients: Record<string, string> | undefined;
    if (patch.recipients) {
      recipients = { ...current.recipients };
      for (const [gateway, value] of Object.entries(canonicalRecipients(patch.recipients))) {
        if (value === null) delete recipients[gateway];
        else recipients[gateway] = value;
      }
    }
    try {
      await this.store.coproducers.update(accountId, id, { email, name: patch.name?.trim(), recipients, updatedAt: nowIso() });
    } catch (err) {
      if (isUniqueViolation(err) && email) await this.taken(accountId, email);
      throw err;
    }
    return this.get(accountId, id);
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (!await this.store.coproducers.delete(accountId, id)) throw rgError('COPRODUCER_NOT_FOUND', { id });
  }

  async list(accountId: string, limit: number, after?: { createdAt: string; id: string }): Promise<CoproducerRecord[]> {
    return await this.store.coproducers.list(accountId, limit, after);
  }
}
