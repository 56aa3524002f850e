import { recategorize, tools } from '@cordon/core';
import { decideForTool } from '@cordon/policy';
import { categoryById, Endpoints, type TestCategoryResult } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import type { AppDeps } from '../../types.ts';
import { lookupThroughUpstreams } from './dns.ts';

/**
 * Tool routes (spec-notes §7 "UI and tools"), from `Endpoints.tools`: test categorisation and the
 * recategorisation queue (requests by every tenant role, review by the system admin), and the DNS
 * lookup through Cordon's upstream resolvers (system and MSP admins). `POST /tools/test/category` is
 * answered by the resolver's policy engine (`decideForTool` of `@cordon/policy`) over the target
 * customer's view only — its policy and lists, its MSP's and the system's lists, its static routes,
 * the name's categories under the approved recategorisations — so it decides as `dig` from a
 * location using that policy does (docs/architecture.md "Test-categorisation tool" says where the
 * two can still differ).
 */
export function registerToolRoutes(app: FastifyInstance, deps: AppDeps): void {
  const e = Endpoints.tools;
  registerEndpoint(app, e.testCategory, async ({ caller, body }): Promise<TestCategoryResult> => {
    const target = await tools.toolTarget(deps, caller, body);
    const answer = await decideForTool(
      deps.handle,
      {
        domain: body.domain,
        customerId: target?.customerId ?? 0,
        mspId: target?.mspId ?? 0,
        policyId: target?.policy?.id ?? null,
      },
      deps.now(),
    );
    const d = answer.decision;
    return {
      domain: answer.qname,
      categories: d.categories.map((id) => ({ id, name: categoryById(id)?.name ?? `#${id}` })),
      policy: target?.policy ?? null,
      action: d.action,
      reason: d.reason,
      forward_to: d.forwardTo ?? null,
    };
  });
  registerEndpoint(app, e.recategorize, ({ caller, body }) => recategorize.requestRecategorization(deps, caller, body));
  registerEndpoint(app, e.recategorizeList, ({ caller, query }) =>
    recategorize.listRecategorizations(deps, caller, query),
  );
  registerEndpoint(app, e.recategorizeReview, ({ caller, params, body }) =>
    recategorize.reviewRecategorization(deps, caller, params.id, body),
  );
  registerEndpoint(app, e.dnsLookup, ({ query }) => lookupThroughUpstreams(query.domain, deps.upstreams));
}
