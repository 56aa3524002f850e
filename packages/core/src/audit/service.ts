import { nowIso } from '@cordon/db';
import { ApiError, type AuditEntry, type AuditQuery, csvText, ddmmyyyy, Role } from '@cordon/shared';
import type { Caller, CoreDeps } from '../context.ts';
import { listPage, sortColumn } from '../paging/index.ts';
import { customerVisible, mspVisible, scopeOf } from '../tenancy/index.ts';
import * as repo from './repository.ts';

/** The most rows one CSV export holds. */
export const AUDIT_EXPORT_MAX = 100_000;

function toEntry(r: repo.AuditRow): AuditEntry {
  return {
    id: Number(r.id),
    at: r.at,
    admin_id: r.admin_id,
    admin_email: r.admin_email,
    role: r.role,
    msp_id: r.msp_id,
    user_id: r.customer_id,
    action: r.action,
    entity: r.entity,
    entity_id: r.entity_id === null ? null : Number(r.entity_id),
    before: r.before_json,
    after: r.after_json,
    client_ip: r.client_ip,
    api_token_id: r.api_token_id ?? null,
    api_token_name: r.api_token_name ?? null,
  };
}

/**
 * Checks the query's `msp_id`/`user_id` against the caller (the same 404 as a missing one).
 * @throws ApiError ERR_NOT_FOUND for a foreign MSP or customer; ERR_FORBIDDEN for a role that reads no audit rows
 */
async function checkQuery(
  deps: CoreDeps,
  caller: Caller,
  query: Pick<AuditQuery, 'msp_id' | 'user_id'>,
): Promise<void> {
  if (caller.role !== Role.System && caller.role !== Role.Msp) throw new ApiError('ERR_FORBIDDEN');
  const scope = scopeOf(caller);
  if (query.msp_id !== undefined && !(await mspVisible(deps.handle.db, scope, caller.role, query.msp_id))) {
    throw new ApiError('ERR_NOT_FOUND');
  }
  if (query.user_id !== undefined && !(await customerVisible(deps.handle.db, scope, query.user_id))) {
    throw new ApiError('ERR_NOT_FOUND');
  }
}

/**
 * `GET /audit`: one page of the audit rows the caller may read (a system admin: all; an MSP admin:
 * its MSP's and its customers'), newest first unless sorted otherwise.
 * @throws ApiError as {@link checkQuery}; ERR_VALIDATION for an unknown sortkey
 */
export async function listAudit(
  deps: CoreDeps,
  caller: Caller,
  query: AuditQuery,
): Promise<{ data: AuditEntry[]; total: number }> {
  await checkQuery(deps, caller, query);
  const { rows, total } = await listPage(
    repo.auditQuery(deps.handle.db, scopeOf(caller), query),
    query,
    repo.AUDIT_SORT,
  );
  return { data: rows.map(toEntry), total };
}

/** The CSV columns of an export. */
export const AUDIT_CSV_COLUMNS = [
  'id',
  'at',
  'admin_email',
  'role',
  'msp_id',
  'user_id',
  'action',
  'entity',
  'entity_id',
  'client_ip',
  'before',
  'after',
] as const;

/**
 * `GET /audit/export`: the rows of {@link listAudit} (no paging, at most {@link AUDIT_EXPORT_MAX}) as
 * CSV (RFC 4180, CRLF), with a header line.
 * @throws ApiError as {@link listAudit}
 */
export async function exportAudit(
  deps: CoreDeps,
  caller: Caller,
  query: Omit<AuditQuery, 'limit' | 'offset'>,
): Promise<string> {
  await checkQuery(deps, caller, query);
  const column = sortColumn(query, repo.AUDIT_SORT.columns);
  const rows = await repo
    .auditQuery(deps.handle.db, scopeOf(caller), query)
    .orderBy(column as 'audit_log.at', query.sortdir)
    .orderBy('audit_log.id', query.sortdir)
    .limit(AUDIT_EXPORT_MAX)
    .execute();
  return csvText(
    AUDIT_CSV_COLUMNS,
    rows.map(toEntry).map((r) => AUDIT_CSV_COLUMNS.map((c) => r[c])),
  );
}

/** The file name of an audit export, with the date as DD-MM-YYYY (spec-notes §9). */
export function auditExportFileName(at: number): string {
  return `audit-${ddmmyyyy(new Date(at), 'utc')}.csv`;
}

/**
 * Records an event that is not a tenant change — a login, a failed login, a 2FA step, a password
 * reset — in the audit log (docs/security.md "Accounts"). `after` must hold no secret.
 */
export async function recordEvent(deps: CoreDeps, event: repo.AuditEvent): Promise<void> {
  await repo.insertEvent(deps.handle.db, event, nowIso(deps.now()));
}
