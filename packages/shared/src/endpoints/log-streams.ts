import { Role } from '../roles.ts';
import { deletedResponseSchema, listOf } from '../schemas/common.ts';
import {
  logStreamCreateSchema,
  logStreamOwnerQuerySchema,
  logStreamParamsSchema,
  logStreamSchema,
  logStreamUpdateSchema,
} from '../schemas/log-streams.ts';
import { defineEndpoint } from './define.ts';

const tag = 'logstreams';
/**
 * Destinations belong to an MSP: its admins and the system admin (naming the MSP). Customer admins
 * and sales are refused (403), as for webhooks' sales; core scopes every query by `msp_id` in SQL.
 */
const access = { scope: 'owned', roles: [Role.System, Role.Msp] } as const;

/** Per-MSP query-log streams (issue 26; docs/operations.md "Query-log streaming" "Per-MSP destinations"). */
export const logStreamEndpoints = {
  list: defineEndpoint({
    method: 'GET',
    path: '/log-streams',
    query: logStreamOwnerQuerySchema,
    response: listOf(logStreamSchema),
    status: 200,
    access,
    tag,
    summary: "The MSP's query-log stream destinations (docs/operations.md Query-log streaming).",
  }),
  create: defineEndpoint({
    method: 'POST',
    path: '/log-streams',
    query: logStreamOwnerQuerySchema,
    body: logStreamCreateSchema,
    response: logStreamSchema,
    status: 201,
    access,
    tag,
    summary: "Add a destination for the MSP's customers' queries (syslog over TCP/TLS or NDJSON over HTTPS).",
  }),
  get: defineEndpoint({
    method: 'GET',
    path: '/log-streams/:id',
    params: logStreamParamsSchema,
    response: logStreamSchema,
    status: 200,
    access,
    tag,
    summary: 'One destination (the Authorization value only as a hint).',
  }),
  update: defineEndpoint({
    method: 'PATCH',
    path: '/log-streams/:id',
    params: logStreamParamsSchema,
    body: logStreamUpdateSchema,
    response: logStreamSchema,
    status: 200,
    access,
    tag,
    summary: 'Change the name, format, address, CA, Authorization value or enablement.',
  }),
  remove: defineEndpoint({
    method: 'DELETE',
    path: '/log-streams/:id',
    params: logStreamParamsSchema,
    response: deletedResponseSchema,
    status: 200,
    access,
    tag,
    summary: 'Delete a destination: the resolvers stop streaming to it.',
  }),
} as const;
