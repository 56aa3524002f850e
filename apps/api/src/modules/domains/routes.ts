import { type Caller, lists } from '@cordon/core';
import { type DomainListKind, domainExportFileName, Endpoints } from '@cordon/shared';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import { acceptUploads, uploadedFile } from '../../http/multipart.ts';
import type { AppDeps } from '../../types.ts';

/** The text of the multipart field `csv` (spec-notes §7 "Domains" import). @throws ApiError as {@link uploadedFile} */
async function csvField(request: FastifyRequest): Promise<string> {
  return (await uploadedFile(request, 'csv', 'A CSV file is required in field csv.')).toString('utf8');
}

/** Sets the headers of a CSV download named with the date as DD-MM-YYYY (spec-notes §9). */
function csvDownload(reply: FastifyReply, kind: DomainListKind, now: number): void {
  reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${domainExportFileName(kind, now)}"`);
}

/**
 * Domain-list routes (spec-notes §7 "Domains"), from `Endpoints.domains`: a policy's lists under
 * `/policies/{id}/domains` and the global lists under `/global/domains` (docs/decisions.md). All are
 * scope `owned`: core resolves the owner (policy, MSP or system) within the caller's tenant in SQL.
 * The imports read multipart bodies: `@fastify/multipart` is registered in this module's own
 * context, so no other route accepts multipart.
 */
export async function registerDomainRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const e = Endpoints.domains;
  const policy = (params: { id: number }, query: { user_id?: number | undefined; msp_id?: number | undefined }) => ({
    policyId: params.id,
    userId: query.user_id,
    mspId: query.msp_id,
  });
  const global = (query: { msp_id?: number | undefined }) => ({ global: true as const, mspId: query.msp_id });
  const exportTo = async (caller: Caller, reply: FastifyReply, target: lists.ListTarget, kind: DomainListKind) => {
    const text = await lists.exportEntries(deps, caller, target, kind);
    csvDownload(reply, kind, deps.now());
    return text;
  };

  await app.register(async (scoped) => {
    await acceptUploads(scoped);
    registerEndpoint(scoped, e.import, async ({ caller, params, query, request }) => {
      const target = policy(params, query);
      await lists.ownerOf(deps, caller, target); // a foreign policy is 404 before the upload is read
      return lists.importEntries(deps, caller, target, params.action, await csvField(request), query.overwrite);
    });
    registerEndpoint(scoped, e.globalImport, async ({ caller, params, query, request }) => {
      const target = global(query);
      await lists.ownerOf(deps, caller, target);
      return lists.importEntries(deps, caller, target, params.action, await csvField(request), query.overwrite);
    });
  });

  registerEndpoint(app, e.list, ({ caller, params, query }) =>
    lists.listEntries(deps, caller, policy(params, query), params.action, query),
  );
  registerEndpoint(app, e.create, ({ caller, params, query, body }) =>
    lists.createEntry(deps, caller, policy(params, query), params.action, body),
  );
  registerEndpoint(app, e.export, ({ caller, params, query, reply }) =>
    exportTo(caller, reply, policy(params, query), params.action),
  );
  registerEndpoint(app, e.get, ({ caller, params, query }) =>
    lists.getEntry(deps, caller, policy(params, query), params.action, params.entryId),
  );
  registerEndpoint(app, e.update, ({ caller, params, query, body }) =>
    lists.updateEntry(deps, caller, policy(params, query), params.action, params.entryId, body),
  );
  registerEndpoint(app, e.remove, ({ caller, params, query }) =>
    lists.deleteEntry(deps, caller, policy(params, query), params.action, params.entryId),
  );

  registerEndpoint(app, e.globalList, ({ caller, params, query }) =>
    lists.listEntries(deps, caller, global(query), params.action, query),
  );
  registerEndpoint(app, e.globalCreate, ({ caller, params, query, body }) =>
    lists.createEntry(deps, caller, global(query), params.action, body),
  );
  registerEndpoint(app, e.globalExport, ({ caller, params, query, reply }) =>
    exportTo(caller, reply, global(query), params.action),
  );
  registerEndpoint(app, e.globalGet, ({ caller, params, query }) =>
    lists.getEntry(deps, caller, global(query), params.action, params.id),
  );
  registerEndpoint(app, e.globalUpdate, ({ caller, params, query, body }) =>
    lists.updateEntry(deps, caller, global(query), params.action, params.id, body),
  );
  registerEndpoint(app, e.globalRemove, ({ caller, params, query }) =>
    lists.deleteEntry(deps, caller, global(query), params.action, params.id),
  );
}
