import { reports } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import { defineModule } from '../../http/module.ts';
import type { AppDeps } from '../../types.ts';

/** Sends PDF bytes as a download (the descriptor's string schema is not applied to a Buffer). */
function sendPdf(reply: FastifyReply, file: { pdf: Buffer; fileName: string }): string {
  reply
    .header('content-type', 'application/pdf')
    .header('content-disposition', `attachment; filename="${file.fileName}"`);
  return file.pdf as unknown as string;
}

/** Report routes (spec-notes §3 "Report types", §7 scheduled reports; docs/api.md "Reports"), from `Endpoints.reports`. */
function registerReportRoutes(app: FastifyInstance, deps: AppDeps): void {
  const e = Endpoints.reports;
  registerEndpoint(app, e.archive, ({ caller, params, query }) => reports.listArchive(deps, caller, params.id, query));
  registerEndpoint(app, e.archivePdf, async ({ caller, params, reply }) =>
    sendPdf(reply, await reports.archivedPdf(deps, caller, params.id, params.aid)),
  );
  registerEndpoint(app, e.pdf, async ({ caller, params, query, reply, request }) =>
    sendPdf(
      reply,
      await reports.oneOffPdf(deps, caller, params.id, params.code, query, request.headers['accept-language']),
    ),
  );
  registerEndpoint(app, e.get, ({ caller, params, query }) =>
    reports.getReport(deps, caller, params.id, params.code, query),
  );
  registerEndpoint(app, e.scheduledList, ({ caller, params, query }) =>
    reports.listScheduled(deps, caller, params.id, query),
  );
  registerEndpoint(app, e.scheduledCreate, ({ caller, params, body }) =>
    reports.createScheduled(deps, caller, params.id, body),
  );
  registerEndpoint(app, e.scheduledRun, ({ caller, params }) =>
    reports.runScheduled(deps, caller, params.id, params.rid),
  );
  registerEndpoint(app, e.scheduledGet, ({ caller, params }) =>
    reports.getScheduled(deps, caller, params.id, params.rid),
  );
  registerEndpoint(app, e.scheduledUpdate, ({ caller, params, body }) =>
    reports.updateScheduled(deps, caller, params.id, params.rid, body),
  );
  registerEndpoint(app, e.scheduledDelete, ({ caller, params }) =>
    reports.deleteScheduled(deps, caller, params.id, params.rid),
  );
}

const foreign = { msp: 404, customer: 404, sales: 403 } as const;
const body = {
  name: 'Weekly blocked',
  type: 'r_blocked_category',
  frequency: 'weekly',
  recipients: ['a@example.test'],
};

/** Reports: data, PDFs, scheduled reports and the archive of one customer. */
export const reportModule = defineModule({
  name: 'reports',
  resources: ['reports'],
  register: registerReportRoutes,
  isolationCases: {
    'reports.archive': [{ params: (_, b) => ({ id: b.customerId }), ...foreign }],
    'reports.archivePdf': [{ params: (_, b) => ({ id: b.customerId, aid: 1 }), ...foreign }],
    'reports.pdf': [{ params: (_, b) => ({ id: b.customerId, code: 'r_trend_day' }), ...foreign }],
    'reports.get': [{ params: (_, b) => ({ id: b.customerId, code: 'r_behaviour_domain' }), ...foreign }],
    'reports.scheduledList': [{ params: (_, b) => ({ id: b.customerId }), ...foreign }],
    'reports.scheduledCreate': [{ params: (_, b) => ({ id: b.customerId }), body: () => body, ...foreign }],
    'reports.scheduledRun': [{ params: (_, b) => ({ id: b.customerId, rid: 1 }), ...foreign }],
    'reports.scheduledGet': [{ params: (_, b) => ({ id: b.customerId, rid: 1 }), ...foreign }],
    'reports.scheduledUpdate': [{ params: (_, b) => ({ id: b.customerId, rid: 1 }), body: () => body, ...foreign }],
    'reports.scheduledDelete': [{ params: (_, b) => ({ id: b.customerId, rid: 1 }), ...foreign }],
  },
  topics: [],
});
