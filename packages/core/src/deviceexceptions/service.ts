import { nowIso } from '@cordon/db';
import {
  ApiError,
  type DependantsResponse,
  type DeviceException,
  type DeviceExceptionCreate,
  type DeviceExceptionDeleteQuery,
  type DeviceExceptionUpdate,
  type ExceptionRule,
  type ExceptionRuleCreate,
  type ListQuery,
  Messages,
} from '@cordon/shared';
import type { Caller, CoreDeps } from '../context.ts';
import { inUse, inUseError } from '../dependants/index.ts';
import { mutate } from '../mutation/index.ts';
import { customerFor } from '../policies/index.ts';
import { scopeOf } from '../tenancy/index.ts';
import * as repo from './repository.ts';

const TOPICS = ['devices'] as const;

const nameTaken = () =>
  new ApiError('ERR_CONFLICT', 'A device exception with this name already exists.', {
    name: 'A device exception with this name already exists.',
  });

/**
 * `GET /device_exceptions?user_id=` (spec-notes §7 "Device exceptions"): a page of the customer's
 * exceptions with their device and rule counts. A customer admin's own customer when `user_id` is left out.
 * @throws ApiError ERR_NOT_FOUND (customer not visible), ERR_VALIDATION (no user_id for a system or MSP admin; sortkey)
 */
export async function listDeviceExceptions(
  deps: CoreDeps,
  caller: Caller,
  query: ListQuery & { user_id?: number | undefined },
): Promise<{ data: DeviceException[]; total: number }> {
  const customerId = await customerFor(deps, caller, query.user_id);
  return repo.listExceptions(deps.handle.db, scopeOf(caller), customerId, query);
}

/**
 * `GET /device_exceptions/{id}`.
 * @throws ApiError ERR_NOT_FOUND when missing or another tenant's
 */
export async function getDeviceException(deps: CoreDeps, caller: Caller, id: number): Promise<DeviceException> {
  const found = await repo.getException(deps.handle.db, scopeOf(caller), id);
  if (!found) throw new ApiError('ERR_NOT_FOUND');
  return found;
}

/**
 * `POST /device_exceptions?user_id=`: a new exception without rules. Audit `device_exception.create`;
 * publishes `devices`.
 * @throws ApiError ERR_CONFLICT for a name the customer already uses; as {@link listDeviceExceptions} for `user_id`
 */
export async function createDeviceException(
  deps: CoreDeps,
  caller: Caller,
  userId: number | undefined,
  body: DeviceExceptionCreate,
): Promise<DeviceException> {
  const customerId = await customerFor(deps, caller, userId);
  const scope = scopeOf(caller);
  const id = await mutate(
    deps,
    caller,
    { topics: TOPICS, audit: { action: 'device_exception.create', entity: 'device_exception' }, conflict: nameTaken },
    async (trx, note) => {
      if (await repo.exceptionNameTaken(trx, customerId, body.name)) throw nameTaken();
      const newId = await repo.insertException(trx, customerId, body, nowIso(deps.now()));
      note.entityId = newId;
      note.customerId = customerId;
      note.after = await repo.getException(trx, scope, newId);
      return newId;
    },
  );
  return getDeviceException(deps, caller, id);
}

/**
 * `PUT /device_exceptions/{id}`: name and description. Audit `device_exception.update`; publishes `devices`.
 * @throws ApiError ERR_NOT_FOUND, ERR_CONFLICT (name taken)
 */
export async function updateDeviceException(
  deps: CoreDeps,
  caller: Caller,
  id: number,
  body: DeviceExceptionUpdate,
): Promise<DeviceException> {
  const scope = scopeOf(caller);
  await mutate(
    deps,
    caller,
    { topics: TOPICS, audit: { action: 'device_exception.update', entity: 'device_exception' }, conflict: nameTaken },
    async (trx, note) => {
      const before = await repo.getException(trx, scope, id);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      if (body.name !== undefined && (await repo.exceptionNameTaken(trx, before.user_id, body.name, id))) {
        throw nameTaken();
      }
      const patch: { name?: string; description?: string } = {};
      if (body.name !== undefined) patch.name = body.name;
      if (body.description !== undefined) patch.description = body.description;
      await repo.updateException(trx, scope, id, patch, nowIso(deps.now()));
      note.entityId = id;
      note.customerId = before.user_id;
      note.before = before;
      note.after = await repo.getException(trx, scope, id);
    },
  );
  return getDeviceException(deps, caller, id);
}

/**
 * `GET /device_exceptions/{id}/dependants` (docs/api.md "Deletes of things in use"): the devices and
 * the device configuration naming the exception, with `in_use` true when a plain DELETE is refused.
 * @throws ApiError ERR_NOT_FOUND
 */
export async function deviceExceptionDependants(
  deps: CoreDeps,
  caller: Caller,
  id: number,
): Promise<DependantsResponse> {
  const exception = await getDeviceException(deps, caller, id);
  const dependants = await repo.exceptionDependants(deps.handle.db, scopeOf(caller), exception.user_id, id);
  return { in_use: inUse(dependants), dependants };
}

/** A field error of the delete's query. */
const badQuery = (field: string, message: string) => new ApiError('ERR_VALIDATION', message, { [field]: message });

/**
 * `DELETE /device_exceptions/{id}[?move_to_device_exception_id=|detach=true]` (docs/api.md "Deletes
 * of things in use"; issue 29): its rules go with it. One named by devices or the device
 * configuration is refused with 409 ERR_IN_USE unless `move_to_device_exception_id` names another
 * exception of the customer (they take it, in the same transaction) or `detach=true` (they keep
 * none). Audit `device_exception.delete` (after: the target and the rows moved); publishes `devices`.
 * @throws ApiError ERR_NOT_FOUND; ERR_VALIDATION (both given; a target that is this one or not the
 *   customer's); InUseError (409 ERR_IN_USE)
 */
export async function deleteDeviceException(
  deps: CoreDeps,
  caller: Caller,
  id: number,
  query: DeviceExceptionDeleteQuery = {},
): Promise<{ deleted: true }> {
  const scope = scopeOf(caller);
  await mutate(
    deps,
    caller,
    { topics: TOPICS, audit: { action: 'device_exception.delete', entity: 'device_exception' } },
    async (trx, note) => {
      const before = await repo.getException(trx, scope, id);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      const target = query.move_to_device_exception_id;
      if (target !== undefined && query.detach) {
        throw badQuery('detach', 'Choose either a device exception to move to or detach, not both.');
      }
      if (target !== undefined) {
        const to = target === id ? undefined : await repo.exceptionOfCustomer(trx, scope, before.user_id, target);
        if (!to)
          throw badQuery('move_to_device_exception_id', 'Please select another device exception of this customer.');
        const moved = await repo.moveExceptionDependants(trx, scope, before.user_id, id, target);
        note.after = { moved_to_device_exception_id: target, moved };
      } else if (query.detach) {
        note.after = { detached: await repo.moveExceptionDependants(trx, scope, before.user_id, id, null) };
      } else {
        const dependants = await repo.exceptionDependants(trx, scope, before.user_id, id);
        if (inUse(dependants)) {
          throw inUseError(
            before.name,
            dependants,
            'Choose another device exception of this customer for them (move_to_device_exception_id), or detach them (detach=true).',
          );
        }
      }
      if (!(await repo.deleteException(trx, scope, id))) throw new ApiError('ERR_NOT_FOUND');
      note.entityId = id;
      note.customerId = before.user_id;
      note.before = before;
    },
  );
  return { deleted: true };
}

/**
 * `GET /device_exceptions/{id}/rules`: `{ data, total }`.
 * @throws ApiError ERR_NOT_FOUND when the exception is missing or another tenant's
 */
export async function listExceptionRules(
  deps: CoreDeps,
  caller: Caller,
  id: number,
): Promise<{ data: ExceptionRule[]; total: number }> {
  await getDeviceException(deps, caller, id);
  const data = await repo.listRules(deps.handle.db, scopeOf(caller), id);
  return { data, total: data.length };
}

/**
 * `POST /device_exceptions/{id}/rules`. Audit `device_exception.rule.create`; publishes `devices`.
 * @throws ApiError ERR_NOT_FOUND
 */
export async function createExceptionRule(
  deps: CoreDeps,
  caller: Caller,
  id: number,
  body: ExceptionRuleCreate,
): Promise<ExceptionRule> {
  const scope = scopeOf(caller);
  return mutate(
    deps,
    caller,
    { topics: TOPICS, audit: { action: 'device_exception.rule.create', entity: 'device_exception_rule' } },
    async (trx, note) => {
      const exception = await repo.getException(trx, scope, id);
      if (!exception) throw new ApiError('ERR_NOT_FOUND');
      const at = nowIso(deps.now());
      const ruleId = await repo.insertRule(trx, exception.user_id, id, ruleValues(body), at);
      await repo.updateException(trx, scope, id, {}, at);
      const rule = await repo.getRule(trx, scope, id, ruleId);
      if (!rule) throw new Error('inserted rule not found');
      note.entityId = ruleId;
      note.customerId = exception.user_id;
      note.after = { device_exception_id: id, ...rule };
      return rule;
    },
  );
}

/** The stored values of a rule: a resolver only for `Use Specific Resolver`. */
function ruleValues(body: ExceptionRuleCreate): repo.RuleValues {
  return {
    domain: body.domain,
    ip: body.ip,
    resolver: body.rule_type === 'Use Specific Resolver' ? body.resolver : '',
    rule_type: body.rule_type,
    description: body.description,
  };
}

/**
 * `PUT /device_exceptions/{id}/rules/{ruleId}`: replaces the rule. Audit `device_exception.rule.update`;
 * publishes `devices`.
 * @throws ApiError ERR_NOT_FOUND
 */
export async function updateExceptionRule(
  deps: CoreDeps,
  caller: Caller,
  id: number,
  ruleId: number,
  body: ExceptionRuleCreate,
): Promise<ExceptionRule> {
  const scope = scopeOf(caller);
  return mutate(
    deps,
    caller,
    { topics: TOPICS, audit: { action: 'device_exception.rule.update', entity: 'device_exception_rule' } },
    async (trx, note) => {
      const before = await repo.getRule(trx, scope, id, ruleId);
      const exception = await repo.getException(trx, scope, id);
      if (!before || !exception) throw new ApiError('ERR_NOT_FOUND');
      const at = nowIso(deps.now());
      await repo.updateRule(trx, scope, id, ruleId, ruleValues(body), at);
      await repo.updateException(trx, scope, id, {}, at);
      const after = await repo.getRule(trx, scope, id, ruleId);
      if (!after) throw new ApiError('ERR_NOT_FOUND');
      note.entityId = ruleId;
      note.customerId = exception.user_id;
      note.before = { device_exception_id: id, ...before };
      note.after = { device_exception_id: id, ...after };
      return after;
    },
  );
}

/**
 * `DELETE /device_exceptions/{id}/rules/{ruleId}`. An exception in use (by a device, or as the
 * customer's device-configuration exception) keeps at least one rule: deleting its last one is
 * refused with the spec-notes §5 text. Audit `device_exception.rule.delete`; publishes `devices`.
 * @throws ApiError ERR_NOT_FOUND; ERR_CONFLICT (409) "You can't delete the last item in this table…"
 */
export async function deleteExceptionRule(
  deps: CoreDeps,
  caller: Caller,
  id: number,
  ruleId: number,
): Promise<{ deleted: true }> {
  const scope = scopeOf(caller);
  await mutate(
    deps,
    caller,
    { topics: TOPICS, audit: { action: 'device_exception.rule.delete', entity: 'device_exception_rule' } },
    async (trx, note) => {
      const exception = await repo.getException(trx, scope, id);
      const before = await repo.getRule(trx, scope, id, ruleId);
      if (!exception || !before) throw new ApiError('ERR_NOT_FOUND');
      if (exception.rules_count <= 1 && (exception.devices_count > 0 || (await repo.isCustomerDefault(trx, id)))) {
        throw new ApiError('ERR_CONFLICT', Messages.lastItem);
      }
      await repo.deleteRule(trx, scope, id, ruleId);
      await repo.updateException(trx, scope, id, {}, nowIso(deps.now()));
      note.entityId = ruleId;
      note.customerId = exception.user_id;
      note.before = { device_exception_id: id, ...before };
    },
  );
  return { deleted: true };
}
