import { auditEndpoints } from '@cordon/shared';
import { keepPreviousData } from '@tanstack/react-query';
import { useApi } from '../../api/context.ts';
import { useEndpointQuery } from '../../api/hooks.ts';

/** The audit list's sort keys the page offers. */
export type AuditSortKey = 'at' | 'action' | 'admin_email';

/** One page of the audit log: paging, sort, search, and an action prefix ('' = all). */
export interface AuditPage {
  limit: number;
  offset: number;
  sortkey: AuditSortKey;
  sortdir: 'asc' | 'desc';
  filter: string;
  action: string;
  mspId?: number;
}

function auditQuery(page: Omit<AuditPage, 'limit' | 'offset'>) {
  return {
    sortkey: page.sortkey,
    sortdir: page.sortdir,
    ...(page.filter ? { filter: page.filter } : {}),
    ...(page.action ? { action: page.action } : {}),
    ...(page.mspId === undefined ? {} : { msp_id: page.mspId }),
  };
}

/** `GET /audit` (docs/api.md "Audit log"). */
export function useAuditQuery(page: AuditPage) {
  return useEndpointQuery(
    auditEndpoints.list,
    { query: { ...auditQuery(page), limit: page.limit, offset: page.offset } },
    { placeholderData: keepPreviousData },
  );
}

/** `GET /audit/export`: the rows of the current search as CSV text. */
export function useAuditExport() {
  const api = useApi();
  return (page: Omit<AuditPage, 'limit' | 'offset'>) => api.call(auditEndpoints.export, { query: auditQuery(page) });
}
