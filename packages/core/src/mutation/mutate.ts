import type { ChangeTopic, Database } from '@cordon/db';
import { nowIso } from '@cordon/db';
import { ApiError } from '@cordon/shared';
import type { Kysely, Transaction } from 'kysely';
import type { Caller, CoreDeps } from '../context.ts';
import { isUniqueViolation } from './unique-violation.ts';

/**
 * The audit facts of one change, filled in by the mutation's work as it learns them (the id of a
 * new row, the state before and after). `before`/`after` are serialised as JSON; secrets must be
 * left out by the caller (password hashes, keys, TOTP secrets).
 */
export interface AuditNote {
  entityId: number | null;
  /** The tenant the changed entity belongs to; defaults to the caller's. */
  mspId: number | null;
  customerId: number | null;
  before: unknown;
  after: unknown;
}

/** What a mutation declares: the topics it changes and the audit row's action and entity. */
export interface MutationSpec {
  /** Change topics published after commit, in order (docs/architecture.md "Data plane"). */
  readonly topics: readonly ChangeTopic[];
  readonly audit: {
    /** A verb phrase, `<entity>.<verb>`: `policy.update`, `location.create`, `admin.delete`. */
    readonly action: string;
    /** The entity's kind: `policy`, `location`, `msp`… */
    readonly entity: string;
  };
  /** The error a unique-index violation becomes; default ERR_CONFLICT with the catalogue's text. */
  readonly conflict?: () => Error;
}

/** The work of a mutation: runs inside the transaction; fills `audit` as it goes. */
export type MutationWork<T> = (trx: Transaction<Database>, audit: AuditNote) => Promise<T>;

/** Serialises an audit state; undefined and null become SQL null. */
const toJson = (value: unknown): string | null =>
  value === undefined || value === null ? null : JSON.stringify(value);

/**
 * The one mutation path (docs/architecture.md "One mutation path"): runs `work` in a transaction,
 * writes the audit row in the same transaction (who, role, tenant, action, entity, before/after,
 * time, client IP), maps a unique-index violation to the conflict error, and publishes the change
 * topics after commit, so a resolver never sees a change that did not commit and every change has
 * its audit row by construction.
 * @returns what `work` returned
 * @throws ApiError from `work`, or the conflict error; nothing is written then
 */
export async function mutate<T>(deps: CoreDeps, caller: Caller, spec: MutationSpec, work: MutationWork<T>): Promise<T> {
  let result: T;
  try {
    result = await deps.handle.db.transaction().execute(async (trx) => {
      const note: AuditNote = {
        entityId: null,
        mspId: caller.mspId,
        customerId: caller.customerId,
        before: null,
        after: null,
      };
      const value = await work(trx, note);
      await writeAudit(trx, caller, spec.audit, note, deps.now());
      return value;
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw spec.conflict ? spec.conflict() : new ApiError('ERR_CONFLICT');
    throw e;
  }
  for (const topic of spec.topics) await deps.changes.publish(topic);
  return result;
}

async function writeAudit(
  db: Kysely<Database>,
  caller: Caller,
  audit: MutationSpec['audit'],
  note: AuditNote,
  now: number,
): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      at: nowIso(now),
      admin_id: caller.adminId,
      admin_email: caller.email,
      role: caller.role,
      msp_id: note.mspId,
      customer_id: note.customerId,
      action: audit.action,
      entity: audit.entity,
      entity_id: note.entityId,
      before_json: toJson(note.before),
      after_json: toJson(note.after),
      client_ip: caller.ip,
      api_token_id: caller.apiToken?.id ?? null,
      api_token_name: caller.apiToken?.name ?? null,
    })
    .execute();
}
