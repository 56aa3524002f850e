import { customers } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import type { AppDeps } from '../../types.ts';

/**
 * Customer routes (spec-notes §7 "Customers"; a customer is a "user" on the wire): `/users/`, `/users/{id}`,
 * from `Endpoints.customers`; the work is core's `customers`.
 */
export function registerCustomerRoutes(app: FastifyInstance, deps: AppDeps): void {
  const e = Endpoints.customers;
  registerEndpoint(app, e.list, ({ caller, query }) => customers.listCustomers(deps, caller, query));
  registerEndpoint(app, e.create, ({ caller, body }) => customers.createCustomer(deps, caller, body));
  registerEndpoint(app, e.get, ({ caller, params }) => customers.getCustomer(deps, caller, params.id));
  registerEndpoint(app, e.update, ({ caller, params, body }) =>
    customers.updateCustomer(deps, caller, params.id, body),
  );
  registerEndpoint(app, e.remove, ({ caller, params, query }) =>
    customers.deleteCustomer(deps, caller, params.id, query),
  );
  registerEndpoint(app, e.dependants, ({ caller, params }) => customers.customerDependants(deps, caller, params.id));
  registerEndpoint(app, e.all, ({ caller, params }) => customers.mspAccount(deps, caller, params.id));
}
