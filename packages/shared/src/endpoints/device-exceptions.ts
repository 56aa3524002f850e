import { Role } from '../roles.ts';
import { deletedResponseSchema, idParamsSchema, listOf } from '../schemas/common.ts';
import { dependantsResponseSchema, deviceExceptionDeleteQuerySchema } from '../schemas/dependants.ts';
import {
  deviceExceptionCreateSchema,
  deviceExceptionListQuerySchema,
  deviceExceptionSchema,
  deviceExceptionUpdateSchema,
  exceptionRuleCreateSchema,
  exceptionRuleSchema,
  exceptionRuleUpdateSchema,
  ruleParamsSchema,
  userIdQuerySchema,
} from '../schemas/environment.ts';
import { defineEndpoint } from './define.ts';

const tag = 'device_exceptions';
/** Addressed by their own ids (or `user_id`): the repository filters every query by the caller's tenant. */
const access = { scope: 'owned', roles: [Role.System, Role.Msp, Role.Customer] } as const;

/** Device exceptions and their rules (spec-notes §7 "Device exceptions"). */
export const deviceExceptionEndpoints = {
  list: defineEndpoint({
    method: 'GET',
    path: '/device_exceptions',
    query: deviceExceptionListQuerySchema,
    response: listOf(deviceExceptionSchema),
    status: 200,
    access,
    tag,
    summary: "A customer's device exceptions with device and rule counts (spec-notes §7 Device exceptions).",
  }),
  create: defineEndpoint({
    method: 'POST',
    path: '/device_exceptions',
    query: userIdQuerySchema,
    body: deviceExceptionCreateSchema,
    response: deviceExceptionSchema,
    status: 201,
    access,
    tag,
    summary: 'Create a device exception (spec-notes §7 Device exceptions).',
  }),
  get: defineEndpoint({
    method: 'GET',
    path: '/device_exceptions/:id',
    params: idParamsSchema,
    response: deviceExceptionSchema,
    status: 200,
    access,
    tag,
    summary: 'One device exception (spec-notes §7 Device exceptions).',
  }),
  update: defineEndpoint({
    method: 'PUT',
    path: '/device_exceptions/:id',
    params: idParamsSchema,
    body: deviceExceptionUpdateSchema,
    response: deviceExceptionSchema,
    status: 200,
    access,
    tag,
    summary: 'Update a device exception (spec-notes §7 Device exceptions).',
  }),
  remove: defineEndpoint({
    method: 'DELETE',
    path: '/device_exceptions/:id',
    params: idParamsSchema,
    query: deviceExceptionDeleteQuerySchema,
    response: deletedResponseSchema,
    status: 200,
    access,
    tag,
    summary:
      'Delete a device exception; one in use needs move_to_device_exception_id or detach=true, else 409 ERR_IN_USE (docs/api.md "Deletes of things in use").',
  }),
  /** Ours (issue 29): the devices and device configuration naming the exception. */
  dependants: defineEndpoint({
    method: 'GET',
    path: '/device_exceptions/:id/dependants',
    params: idParamsSchema,
    response: dependantsResponseSchema,
    status: 200,
    access,
    tag,
    summary:
      'What names a device exception (devices, the device configuration): counts and first names (docs/api.md "Deletes of things in use").',
  }),
  listRules: defineEndpoint({
    method: 'GET',
    path: '/device_exceptions/:id/rules',
    params: idParamsSchema,
    response: listOf(exceptionRuleSchema),
    status: 200,
    access,
    tag,
    summary: "A device exception's rules (spec-notes §7 Device exceptions).",
  }),
  createRule: defineEndpoint({
    method: 'POST',
    path: '/device_exceptions/:id/rules',
    params: idParamsSchema,
    body: exceptionRuleCreateSchema,
    response: exceptionRuleSchema,
    status: 201,
    access,
    tag,
    summary: 'Add a rule to a device exception (spec-notes §7 Device exceptions).',
  }),
  updateRule: defineEndpoint({
    method: 'PUT',
    path: '/device_exceptions/:id/rules/:ruleId',
    params: ruleParamsSchema,
    body: exceptionRuleUpdateSchema,
    response: exceptionRuleSchema,
    status: 200,
    access,
    tag,
    summary: 'Update an exception rule (spec-notes §7 Device exceptions).',
  }),
  removeRule: defineEndpoint({
    method: 'DELETE',
    path: '/device_exceptions/:id/rules/:ruleId',
    params: ruleParamsSchema,
    response: deletedResponseSchema,
    status: 200,
    access,
    tag,
    summary: 'Delete an exception rule; an exception in use keeps at least one (spec-notes §5).',
  }),
} as const;
