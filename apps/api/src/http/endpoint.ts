import type { Caller } from '@cordon/core';
import type { EndpointBody, EndpointDescriptor, EndpointParams, EndpointQuery, EndpointResult } from '@cordon/shared';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** What an endpoint's handler receives: the parsed inputs typed from the descriptor, and the caller. */
export interface EndpointCall<E extends EndpointDescriptor> {
  readonly params: EndpointParams<E>;
  readonly query: EndpointQuery<E>;
  readonly body: EndpointBody<E>;
  /** The authenticated caller; null on public endpoints (login), which have none. */
  readonly caller: E['access'] extends { readonly public: true } ? null : Caller;
  /** The Fastify request, for what the descriptor does not carry (headers, the token's jti). */
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
}

/** An endpoint's handler: answers the success body; throws `ApiError` for anything else. */
export type EndpointHandler<E extends EndpointDescriptor> = (call: EndpointCall<E>) => Promise<EndpointResult<E>>;

/**
 * The caller of an authenticated request, from the token the auth hook checked (`request.principal`)
 * and the client address after trusted-proxy handling (`request.ip`).
 */
export function callerOf(request: FastifyRequest): Caller {
  const t = request.principal;
  return {
    kind: 'admin',
    adminId: t.adminId,
    email: t.email,
    role: t.role,
    mspId: t.mspId,
    customerId: t.customerId,
    ip: request.ip,
    apiToken: t.apiToken ? { id: t.apiToken.id, name: t.apiToken.name } : undefined,
  };
}

/**
 * Registers the route of `endpoint` on `app` (docs/contributing.md "Add a route"): method, path,
 * zod schemas (validation, serialisation and OpenAPI), the access the tenancy guard enforces and
 * the success status all come from the descriptor, so the route cannot drift from the contract the
 * console calls. Public endpoints must be registered in the public context, the others in the
 * authenticated one (the guard refuses a route without scope and roles).
 */
export function registerEndpoint<E extends EndpointDescriptor>(
  app: FastifyInstance,
  endpoint: E,
  handler: EndpointHandler<E>,
): void {
  const schema: Record<string, unknown> = {
    tags: [endpoint.tag],
    summary: endpoint.summary,
    response: { [endpoint.status]: endpoint.response },
  };
  if (endpoint.params) schema['params'] = endpoint.params;
  if (endpoint.query) schema['querystring'] = endpoint.query;
  if (endpoint.body) schema['body'] = endpoint.body;
  const access = endpoint.access;
  app.route({
    method: endpoint.method,
    url: endpoint.path,
    schema,
    ...('scope' in access ? { config: { scope: access.scope, roles: access.roles } } : {}),
    handler: async (request, reply) => {
      const result = await handler({
        params: request.params as EndpointParams<E>,
        query: request.query as EndpointQuery<E>,
        body: request.body as EndpointBody<E>,
        caller: ('scope' in access ? callerOf(request) : null) as EndpointCall<E>['caller'],
        request,
        reply,
      });
      return reply.status(endpoint.status).send(result);
    },
  });
}
