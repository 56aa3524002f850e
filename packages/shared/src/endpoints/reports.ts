import { z } from 'zod';
import { Role } from '../roles.ts';
import { deletedResponseSchema, idParamsSchema } from '../schemas/common.ts';
import {
  archivedReportListSchema,
  archivedReportParamsSchema,
  reportListQuerySchema,
  reportParamsSchema,
  reportQuerySchema,
  reportSchema,
  scheduledReportCreateSchema,
  scheduledReportListSchema,
  scheduledReportParamsSchema,
  scheduledReportSchema,
  scheduledReportUpdateSchema,
  scheduledRunSchema,
} from '../schemas/reports.ts';
import { defineEndpoint } from './define.ts';

const tag = 'reports';
const access = { scope: 'customer', roles: [Role.System, Role.Msp, Role.Customer] } as const;

/**
 * Reports (spec-notes §3 "Report types", §7 "MSPs, reports, routes"; docs/api.md "Reports"): a report's
 * data and its one-off PDF, the scheduled reports (spec paths, plus DELETE) with `run`, and the
 * archive of PDFs sent. The PDF answers are `application/pdf` bytes; their schema describes nothing.
 */
export const reportEndpoints = {
  archive: defineEndpoint({
    method: 'GET',
    path: '/users/:id/reports/archive',
    params: idParamsSchema,
    query: reportListQuerySchema,
    response: archivedReportListSchema,
    status: 200,
    access,
    tag,
    summary: "A customer's archived report PDFs of the last 6 months, newest first (spec-notes §9).",
  }),
  archivePdf: defineEndpoint({
    method: 'GET',
    path: '/users/:id/reports/archive/:aid/pdf',
    params: archivedReportParamsSchema,
    response: z.string(),
    status: 200,
    access,
    tag,
    summary: 'One archived report as its PDF (application/pdf).',
  }),
  pdf: defineEndpoint({
    method: 'GET',
    path: '/users/:id/reports/:code/pdf',
    params: reportParamsSchema,
    query: reportQuerySchema,
    response: z.string(),
    status: 200,
    access,
    tag,
    summary: 'A one-off PDF of report {code} between start and end (application/pdf).',
  }),
  get: defineEndpoint({
    method: 'GET',
    path: '/users/:id/reports/:code',
    params: reportParamsSchema,
    query: reportQuerySchema,
    response: reportSchema,
    status: 200,
    access,
    tag,
    summary: 'Report {code} (an r_* code of spec-notes §3) of a customer between start and end.',
  }),
  scheduledList: defineEndpoint({
    method: 'GET',
    path: '/users/:id/scheduledreports',
    params: idParamsSchema,
    query: reportListQuerySchema,
    response: scheduledReportListSchema,
    status: 200,
    access,
    tag,
    summary: "A customer's scheduled reports (spec-notes §7).",
  }),
  scheduledCreate: defineEndpoint({
    method: 'POST',
    path: '/users/:id/scheduledreports',
    params: idParamsSchema,
    body: scheduledReportCreateSchema,
    response: scheduledReportSchema,
    status: 201,
    access,
    tag,
    summary: 'Creates a scheduled report (spec-notes §7).',
  }),
  scheduledRun: defineEndpoint({
    method: 'POST',
    path: '/users/:id/scheduledreports/:rid/run',
    params: scheduledReportParamsSchema,
    response: scheduledRunSchema,
    status: 200,
    access,
    tag,
    summary:
      'Builds and mails a scheduled report now for its last full period, answered as period_start and period_end (spec-notes §7).',
  }),
  scheduledGet: defineEndpoint({
    method: 'GET',
    path: '/users/:id/scheduledreports/:rid',
    params: scheduledReportParamsSchema,
    response: scheduledReportSchema,
    status: 200,
    access,
    tag,
    summary: 'One scheduled report (spec-notes §7).',
  }),
  scheduledUpdate: defineEndpoint({
    method: 'POST',
    path: '/users/:id/scheduledreports/:rid',
    params: scheduledReportParamsSchema,
    body: scheduledReportUpdateSchema,
    response: scheduledReportSchema,
    status: 200,
    access,
    tag,
    summary: 'Updates a scheduled report (spec-notes §7: POST).',
  }),
  scheduledDelete: defineEndpoint({
    method: 'DELETE',
    path: '/users/:id/scheduledreports/:rid',
    params: scheduledReportParamsSchema,
    response: deletedResponseSchema,
    status: 200,
    access,
    tag,
    summary: 'Deletes a scheduled report; its archived PDFs stay (docs/api.md "Reports").',
  }),
} as const;
