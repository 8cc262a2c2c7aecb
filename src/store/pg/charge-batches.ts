import type { AttemptRecord, ChargePatch, ChargeRecord } from '../charges';
import { StatementBatcher } from './batcher';
import {
  ATTEMPT_COLUMNS, COLUMN, FINISHED_COLUMNS, KEYS, SELECT, attemptInsertValues, attemptValues, compatModeIsGateway, indexesGatewayId, nativeIdsOf,
  patchColumns, toColumn,
} from './charge-columns';
import type { Queryable } from './queryable';

/** A create's first write (PgChargesRepository.birth). */
export interface BirthInput {
  charge: ChargeRecord;
  lock: { owner: string; expiresAt: number };
  attempt: AttemptRecord;
  clientKey?: string;
}

/** An operation's last write (PgChargesRepository.settleOperation). */
export interface SettleInput {
  id: string;
  finished: AttemptRecord;
  patch: ChargePatch;
  owner: string;
}

/** The charge writes each PostgreSQL store batches (StatementBatcher), and the pool they are written on. */
export interface ChargeBatches {
  pool: Queryable;
  births: StatementBatcher<BirthInput, void>;
  /** Each settle's row as returned, with `row_version` (ChargeSnapshots). */
  settles: StatementBatcher<SettleInput, Record<string, unknown>>;
}

/**
 * Rows as JSON objects keyed by column: PostgreSQL reads them back typed by the table's own row type. Rows found by
 * a batch's ids also name them as an array (`= ANY`): the planner cannot see how many rows a JSON document holds and
 * would otherwise scan the whole table to join them.
 */
const BIRTHS = {
  name: 'charges.births',
  text: `WITH born AS (INSERT INTO charges (${SELECT}, lock_owner, lock_expires_at, op_seq)
        SELECT ${SELECT}, lock_owner, lock_expires_at, op_seq FROM json_populate_recordset(NULL::charges, $1::json) RETURNING id),
      attempt AS (INSERT INTO charge_attempts (${ATTEMPT_COLUMNS.join(', ')})
        SELECT ${ATTEMPT_COLUMNS.join(', ')} FROM json_populate_recordset(NULL::charge_attempts, $2::json)),
      linked AS (UPDATE idempotency_keys k SET charge_id = l.charge_id
        FROM json_to_recordset($3::json) AS l(account_id text, key text, charge_id text)
        WHERE k.account_id = l.account_id AND k.key = l.key AND k.account_id = ANY($4::text[]) AND k.key = ANY($5::text[]))
    SELECT count(*)::int AS n FROM born`,
};

const SETTABLE = KEYS.filter((k) => k !== 'id' && k !== 'accountId' && k !== 'createdAt').map((k) => COLUMN[k]);
const FINISHED_TYPES: Record<string, string> = {
  outcome: 'text', error_code: 'text', failure_kind: 'text', gateway_status: 'bigint', message: 'text', ambiguous: 'bigint',
  duration_ms: 'bigint', external_id: 'text', amount: 'bigint',
};
if (FINISHED_COLUMNS.some((c) => !FINISHED_TYPES[c])) throw new Error('FINISHED_TYPES must type every column of FINISHED_COLUMNS');
/**
 * PgChargesRepository.settleOperation for many charges in one statement. A column the patch names takes the patch's
 * value and every other keeps the value the row has when the UPDATE reaches it (json_populate_record over the row
 * itself): what changed is written, nothing read earlier is written back. The lock is released only for its owner,
 * the attempt's end recorded, and the gateway ids indexed under the same conditions as patchStatement's.
 */
const SETTLES = {
  name: 'charges.settles',
  text: `WITH input AS (SELECT * FROM json_to_recordset($1::json) AS i(id text, patch json, owner text, seq bigint,
        ${FINISHED_COLUMNS.map((c) => `f_${c} ${FINISHED_TYPES[c]}`).join(', ')}, external text, refs text[])),
      changed AS (UPDATE charges c SET (${SETTABLE.join(', ')}) = (SELECT ${SETTABLE.map((col) => `r.${col}`).join(', ')} FROM json_populate_record(c, i.patch) r),
          lock_owner = CASE WHEN c.lock_owner = i.owner THEN NULL ELSE c.lock_owner END,
          lock_expires_at = CASE WHEN c.lock_owner = i.owner THEN NULL ELSE c.lock_expires_at END
        FROM input i WHERE c.id = i.id AND c.id = ANY($3::text[]) RETURNING ${KEYS.map((k) => `c.${COLUMN[k]}`).join(', ')}, c.xmin::text AS row_version),
      finished AS (UPDATE charge_attempts a SET ${FINISHED_COLUMNS.map((c) => `${c} = i.f_${c}`).join(', ')}
        FROM input i WHERE a.charge_id = i.id AND a.seq = i.seq AND a.charge_id = ANY($3::text[])),
      indexed AS (INSERT INTO charge_native_ids (account_id, native_id, charge_id)
          SELECT changed.account_id, i.external, changed.id FROM changed JOIN input i ON i.id = changed.id
            WHERE i.external IS NOT NULL AND ${indexesGatewayId('changed', '$2')}
          UNION ALL
          SELECT changed.account_id, n.native_id, changed.id FROM changed JOIN input i ON i.id = changed.id, unnest(i.refs) AS n(native_id)
            WHERE ${compatModeIsGateway('changed')}
          ON CONFLICT DO NOTHING)
    SELECT ${SELECT}, row_version FROM changed`,
};

function birthRows(inputs: BirthInput[]): [string, string, string, string[], string[]] {
  const charges: Array<Record<string, unknown>> = [];
  const attempts: Array<Record<string, unknown>> = [];
  const links: Array<Record<string, unknown>> = [];
  for (const { charge, lock, attempt, clientKey } of inputs) {
    const row: Record<string, unknown> = {};
    for (const k of KEYS) row[COLUMN[k]] = toColumn(k, charge[k]);
    row.lock_owner = lock.owner;
    row.lock_expires_at = lock.expiresAt;
    row.op_seq = attempt.seq;
    charges.push(row);
    const values = attemptInsertValues(charge.id, attempt);
    const a: Record<string, unknown> = {};
    ATTEMPT_COLUMNS.forEach((c, i) => (a[c] = values[i]));
    attempts.push(a);
    if (clientKey !== undefined) links.push({ account_id: charge.accountId, key: clientKey, charge_id: charge.id });
  }
  return [JSON.stringify(charges), JSON.stringify(attempts), JSON.stringify(links), links.map((l) => l.account_id as string), links.map((l) => l.key as string)];
}

function settleRow({ id, finished, patch, owner }: SettleInput, updatedAt: string): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  for (const [column, value] of patchColumns(patch)) set[column] = value;
  set.updated_at = updatedAt;
  const row: Record<string, unknown> = { id, patch: set, owner, seq: finished.seq };
  attemptValues(finished).forEach((v, i) => (row[`f_${FINISHED_COLUMNS[i]}`] = v));
  const { external, refs } = nativeIdsOf(patch);
  row.external = external;
  row.refs = refs;
  return row;
}

/**
 * The batchers of one store's charge writes, on `pool`. `namingChargeId` is read at each batch: the gateways whose
 * webhooks name the charge (ChargesRepository.gatewaysNamingChargeId), set after the store opens.
 */
export function chargeBatches(pool: Queryable, namingChargeId: () => ReadonlySet<string>): ChargeBatches {
  const births = new StatementBatcher<BirthInput, void>({
    key: (input) => input.charge.id,
    async many(inputs) {
      await pool.query({ name: BIRTHS.name, text: BIRTHS.text, values: birthRows(inputs) });
      return inputs.map(() => undefined);
    },
  });
  const settles = new StatementBatcher<SettleInput, Record<string, unknown>>({
    key: (input) => input.id,
    async many(inputs) {
      const updatedAt = new Date().toISOString();
      const values = [JSON.stringify(inputs.map((input) => settleRow(input, updatedAt))), [...namingChargeId()], inputs.map((input) => input.id)];
      const { rows } = await pool.query({ name: SETTLES.name, text: SETTLES.text, values });
      const byId = new Map(rows.map((row) => [row.id as string, row]));
      return inputs.map((input) => {
        const row = byId.get(input.id);
        return row ?? new Error(`charge ${input.id} is not stored`);
      });
    },
  });
  return { pool, births, settles };
}
