/**
 * The audit log's reads and its non-mutation events (docs/security.md "Accounts"): the rows `mutate`
 * writes for every change, plus logins, failed logins, 2FA steps and password resets.
 */
export type { AuditEvent } from './repository.ts';
export {
  AUDIT_CSV_COLUMNS,
  AUDIT_EXPORT_MAX,
  auditExportFileName,
  exportAudit,
  listAudit,
  recordEvent,
} from './service.ts';
