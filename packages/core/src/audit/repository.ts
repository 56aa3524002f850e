import type { AuditLogTable, Database } from '@cordon/db';
import type { AuditQuery } from '@cordon/shared';
import { type Kysely, type Selectable, sql } from 'kysely';
import { containsPattern, type ListSort } from '../paging/index.ts';
import type { TenantScope } from '../tenancy/index.ts';

/** A stored audit row. */
export type AuditRow = Selectable<AuditLogTable>;

/** The audit list's order: newest first by default (`at`). */
export const AUDIT_SORT: ListSort<string> = {
  columns: {
    at: 'audit_log.at',
    name: 'audit_log.at',
    action: 'audit_log.action',
    entity: 'audit_log.entity',
    admin_email: 'audit_log.admin_email',
    id: 'audit_log.id',
  },
  text: ['audit_log.action', 'audit_log.entity', 'audit_log.admin_email'],
  tiebreak: 'audit_log.id',
};

/**
 * The audit rows `scope` may read, narrowed by the query's filters, in SQL: everything for `all`;
 * for an MSP, the rows of its MSP and of its customers (also those written with only the customer
 * id); nothing for other scopes.
 */
export function auditQuery(db: Kysely<Database>, scope: TenantScope, query: Omit<AuditQuery, 'limit' | 'offset'>) {
  let q = db.selectFrom('audit_log').selectAll('audit_log');
  if (scope.kind === 'msp') {
    const mspId = scope.mspId;
    q = q.where((eb) =>
      eb.or([
        eb('audit_log.msp_id', '=', mspId),
        eb(
          'audit_log.customer_id',
          'in',
          eb.selectFrom('customers').select('customers.id').where('customers.msp_id', '=', mspId),
        ),
      ]),
    );
  } else if (scope.kind !== 'all') {
    q = q.where(sql<boolean>`1 = 0`);
  }
  if (query.msp_id !== undefined) {
    const mspId = query.msp_id;
    q = q.where((eb) =>
      eb.or([
        eb('audit_log.msp_id', '=', mspId),
        eb(
          'audit_log.customer_id',
          'in',
          eb.selectFrom('customers').select('customers.id').where('customers.msp_id', '=', mspId),
        ),
      ]),
    );
  }
  if (query.user_id !== undefined) q = q.where('audit_log.customer_id', '=', query.user_id);
  if (query.action !== undefined && query.action !== '') {
    q = q.where(sql<boolean>`lower(audit_log.action) like ${`${containsPattern(query.action).slice(1)}`} escape '\\'`);
  }
  if (query.from !== undefined) q = q.where('audit_log.at', '>=', query.from);
  if (query.to !== undefined) q = q.where('audit_log.at', '<', query.to);
  if (query.filter !== undefined && query.filter !== '') {
    const pattern = containsPattern(query.filter);
    q = q.where((eb) =>
      eb.or([
        sql<boolean>`lower(audit_log.action) like ${pattern} escape '\\'`,
        sql<boolean>`lower(audit_log.entity) like ${pattern} escape '\\'`,
        sql<boolean>`lower(coalesce(audit_log.admin_email, '')) like ${pattern} escape '\\'`,
        sql<boolean>`lower(coalesce(audit_log.client_ip, '')) like ${pattern} escape '\\'`,
      ]),
    );
  }
  return q;
}

/** One row of the audit log outside a mutation (logins, failed logins, password resets: not tenant changes). */
export interface AuditEvent {
  adminId: number | null;
  email: string | null;
  role: number | null;
  mspId: number | null;
  customerId: number | null;
  ip: string | null;
  action: string;
  entity: string;
  entityId: number | null;
  /** What to show as the event's detail (never a secret). */
  after?: unknown;
}

/** Inserts one audit row. */
export async function insertEvent(db: Kysely<Database>, event: AuditEvent, at: string): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      at,
      admin_id: event.adminId,
      admin_email: event.email,
      role: event.role,
      msp_id: event.mspId,
      customer_id: event.customerId,
      action: event.action,
      entity: event.entity,
      entity_id: event.entityId,
      before_json: null,
      after_json: event.after === undefined || event.after === null ? null : JSON.stringify(event.after),
      client_ip: event.ip,
    })
    .execute();
}
