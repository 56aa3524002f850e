import {
  defaultPolicyQuerySchema,
  deletedResponseSchema,
  idParamsSchema,
  listOf,
  policyCategoriesUpdateSchema,
  policyCategoryListSchema,
  policyCreateSchema,
  policyListQuerySchema,
  policySchema,
  policyUpdateSchema,
  Role,
} from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../types.ts';
import * as service from './service.ts';

/**
 * Policy routes (spec §7 "Policies"): `/policies`, `/policies/{id}`, `/policies/{id}/categories` and the
 * customer default policy `/policies/default[/categories]?user_id=`. Policies are addressed by their own
 * ids (scope `owned`): the repository filters every query by the caller's tenant in SQL.
 */
export async function policyRoutes(root: FastifyInstance, deps: AppDeps): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['policies'];
  const config = { scope: 'owned', roles: [Role.System, Role.Msp, Role.Customer] } as const;

  app.get(
    '/policies',
    { config, schema: { tags, querystring: policyListQuerySchema, response: { 200: listOf(policySchema) } } },
    (req) => service.listPolicies(deps, req.tenant, req.query),
  );

  app.post(
    '/policies',
    { config, schema: { tags, body: policyCreateSchema, response: { 201: policySchema } } },
    async (req, reply) => reply.status(201).send(await service.createPolicy(deps, req.tenant, req.body)),
  );

  // The default policy: static paths win over `/policies/:id` in the router.
  app.get(
    '/policies/default',
    { config, schema: { tags, querystring: defaultPolicyQuerySchema, response: { 200: policySchema } } },
    async (req) =>
      service.getPolicy(deps, req.tenant, await service.defaultPolicyIdFor(deps, req.tenant, req.query.user_id)),
  );

  app.put(
    '/policies/default',
    {
      config,
      schema: {
        tags,
        querystring: defaultPolicyQuerySchema,
        body: policyUpdateSchema,
        response: { 200: policySchema },
      },
    },
    async (req) =>
      service.updatePolicy(
        deps,
        req.tenant,
        await service.defaultPolicyIdFor(deps, req.tenant, req.query.user_id),
        req.body,
      ),
  );

  app.get(
    '/policies/default/categories',
    { config, schema: { tags, querystring: defaultPolicyQuerySchema, response: { 200: policyCategoryListSchema } } },
    async (req) =>
      service.getPolicyCategories(
        deps,
        req.tenant,
        await service.defaultPolicyIdFor(deps, req.tenant, req.query.user_id),
      ),
  );

  // The spec lists GET and POST for the default policy's categories; PUT matches /policies/{id}/categories.
  for (const method of ['PUT', 'POST'] as const) {
    app.route({
      method,
      url: '/policies/default/categories',
      config,
      schema: {
        tags,
        querystring: defaultPolicyQuerySchema,
        body: policyCategoriesUpdateSchema,
        response: { 200: policyCategoryListSchema },
      },
      handler: async (req) =>
        service.setPolicyCategories(
          deps,
          req.tenant,
          await service.defaultPolicyIdFor(deps, req.tenant, req.query.user_id),
          req.body,
        ),
    });
  }

  app.get(
    '/policies/:id',
    { config, schema: { tags, params: idParamsSchema, response: { 200: policySchema } } },
    (req) => service.getPolicy(deps, req.tenant, req.params.id),
  );

  app.put(
    '/policies/:id',
    { config, schema: { tags, params: idParamsSchema, body: policyUpdateSchema, response: { 200: policySchema } } },
    (req) => service.updatePolicy(deps, req.tenant, req.params.id, req.body),
  );

  app.delete(
    '/policies/:id',
    { config, schema: { tags, params: idParamsSchema, response: { 200: deletedResponseSchema } } },
    (req) => service.deletePolicy(deps, req.tenant, req.params.id),
  );

  app.get(
    '/policies/:id/categories',
    { config, schema: { tags, params: idParamsSchema, response: { 200: policyCategoryListSchema } } },
    (req) => service.getPolicyCategories(deps, req.tenant, req.params.id),
  );

  app.put(
    '/policies/:id/categories',
    {
      config,
      schema: {
        tags,
        params: idParamsSchema,
        body: policyCategoriesUpdateSchema,
        response: { 200: policyCategoryListSchema },
      },
    },
    (req) => service.setPolicyCategories(deps, req.tenant, req.params.id, req.body),
  );
}
