import {
  type ArchivedReport,
  powerBiEndpoints,
  type ReportCode,
  reportEndpoints,
  type ScheduledReport,
} from '@cordon/shared';
import { keepPreviousData } from '@tanstack/react-query';
import { API_BASE, withQuery } from '../../api/client.ts';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';
import { saveFile } from '../../components/saveFile.ts';

export type { ArchivedReport, ScheduledReport };

/** `GET /users/{id}/reports/{code}?start&end` (docs/api.md "Reports"): one report's rows. */
export function useReportQuery(
  customerId: number,
  code: ReportCode,
  start: string | undefined,
  end: string | undefined,
  enabled: boolean,
) {
  return useEndpointQuery(
    reportEndpoints.get,
    {
      params: { id: customerId, code },
      query: { ...(start !== undefined ? { start } : {}), ...(end !== undefined ? { end } : {}) },
    },
    { enabled, placeholderData: keepPreviousData },
  );
}

/** `GET /users/{id}/scheduledreports` (spec-notes §7): one page of the scheduled reports. */
export function useScheduledReportsQuery(customerId: number, page: { limit: number; offset: number }) {
  return useEndpointQuery(
    reportEndpoints.scheduledList,
    { params: { id: customerId }, query: page },
    { placeholderData: keepPreviousData },
  );
}

/** `POST /users/{id}/scheduledreports` (spec-notes §7). */
export function useCreateScheduledReportMutation(customerId: number) {
  return useEndpointMutation(reportEndpoints.scheduledCreate, { params: { id: customerId } });
}

/** `POST /users/{id}/scheduledreports/{rid}` (spec-notes §7: an update). */
export function useUpdateScheduledReportMutation(customerId: number, rid: number) {
  return useEndpointMutation(reportEndpoints.scheduledUpdate, { params: { id: customerId, rid } });
}

/** `DELETE /users/{id}/scheduledreports/{rid}`. */
export function useDeleteScheduledReportMutation(customerId: number, rid: number) {
  return useEndpointMutation(reportEndpoints.scheduledDelete, { params: { id: customerId, rid } });
}

/** `POST /users/{id}/scheduledreports/{rid}/run` (spec-notes §7): send it now. */
export function useRunScheduledReportMutation(customerId: number, rid: number) {
  return useEndpointMutation(reportEndpoints.scheduledRun, { params: { id: customerId, rid } });
}

/** `GET /users/{id}/reports/archive`: archived PDFs, newest first. */
export function useArchiveQuery(customerId: number, page: { limit: number; offset: number }) {
  return useEndpointQuery(
    reportEndpoints.archive,
    { params: { id: customerId }, query: page },
    { placeholderData: keepPreviousData },
  );
}

/**
 * Downloads a PDF answer of the API (`/reports/{code}/pdf`, `/reports/archive/{aid}/pdf`) with the
 * session's bearer token and saves it under the server's file name. The typed client reads text,
 * which would corrupt the bytes, so this one call fetches the blob itself. `lang`, the interface
 * language, goes as `Accept-Language`: a one-off PDF names its categories in it (docs/decisions.md
 * "Category names in the reader's language"); an archived PDF stays as it was mailed.
 * @throws Error with the server's error text when the answer is not a PDF
 */
export async function downloadPdf(
  token: string | null,
  path: string,
  query?: Record<string, string>,
  lang?: string,
): Promise<void> {
  const headers: Record<string, string> = {};
  if (token) headers['Authorization'] = `Bearer ${token}`;
  if (lang) headers['Accept-Language'] = lang;
  const res = await fetch(`${API_BASE}${withQuery(path, query)}`, { credentials: 'include', headers });
  if (!res.ok || !(res.headers.get('content-type') ?? '').startsWith('application/pdf')) {
    let text = `${res.status}`;
    try {
      text = ((await res.json()) as { error?: string }).error ?? text;
    } catch {
      // not JSON: the status
    }
    throw new Error(text);
  }
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'report.pdf';
  saveFile(await res.blob(), name, 'application/pdf');
}

/** `GET /powerbi/config` (spec-notes §7): whether a Power BI embed is configured; the link is hidden when not. */
export function usePowerBiConfigQuery() {
  return useEndpointQuery(powerBiEndpoints.config, {}, { staleTime: 300_000 });
}
