import { type DependantsResponse, deviceExceptionEndpoints } from '@cordon/shared';
import { keepPreviousData } from '@tanstack/react-query';
import { deleteItems, useBatchMutation } from '../../api/batch.ts';
import { useApi } from '../../api/context.ts';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';

/** The device-exception list's sort keys the page offers. */
export type ExceptionSortKey = 'name' | 'description' | 'updated_at';

/** One page of the device-exception list (spec-notes §9). */
export interface ExceptionListPage {
  limit: number;
  offset: number;
  sortkey: ExceptionSortKey;
  sortdir: 'asc' | 'desc';
  filter: string;
}

/** `GET /device_exceptions?user_id=` (spec-notes §7 Device exceptions). */
export function useExceptionsQuery(customerId: number, page: ExceptionListPage) {
  return useEndpointQuery(
    deviceExceptionEndpoints.list,
    {
      query: {
        user_id: customerId,
        limit: page.limit,
        offset: page.offset,
        sortkey: page.sortkey,
        sortdir: page.sortdir,
        ...(page.filter ? { filter: page.filter } : {}),
      },
    },
    { placeholderData: keepPreviousData },
  );
}

/** `POST /device_exceptions?user_id=` (spec-notes §7). */
export function useCreateExceptionMutation(customerId: number) {
  return useEndpointMutation(deviceExceptionEndpoints.create, { query: { user_id: customerId } });
}

/** `GET /device_exceptions/{id}` (spec-notes §7). */
export function useExceptionQuery(id: number) {
  return useEndpointQuery(deviceExceptionEndpoints.get, { params: { id } });
}

/** `PUT /device_exceptions/{id}` (spec-notes §7). */
export function useUpdateExceptionMutation(id: number) {
  return useEndpointMutation(deviceExceptionEndpoints.update, { params: { id } });
}

/** The value of the delete dialog's "no device exception" choice. */
export const DETACH = 'detach';

/**
 * Deletes device exceptions as ONE `POST /batch` of `DELETE /device_exceptions/{id}` (spec-notes §7
 * Batch). `moveTo` is the dialog's choice: another exception's id (its devices and the device
 * configuration take it) or {@link DETACH} (none); null sends neither, and an exception in use is
 * refused (docs/api.md "Deletes of things in use").
 */
export function useDeleteExceptionsMutation() {
  const batch = useBatchMutation({ invalidates: ['device_exceptions', 'devices'] });
  return {
    isPending: batch.isPending,
    run: (ids: readonly number[], moveTo: string | null = null) =>
      batch.mutateAsync(
        deleteItems(deviceExceptionEndpoints.remove, ids, (id) => ({
          params: { id },
          ...(moveTo === DETACH
            ? { query: { detach: 'true' as const } }
            : moveTo !== null
              ? { query: { move_to_device_exception_id: Number(moveTo) } }
              : {}),
        })),
      ),
  };
}

/** `GET /device_exceptions/{id}/dependants` as a function for the delete dialog. */
export function useExceptionDependantsFetcher(): (id: number) => Promise<DependantsResponse> {
  const api = useApi();
  return (id) => api.call(deviceExceptionEndpoints.dependants, { params: { id } });
}

/** Where the devices of the exceptions `deleting` may go: "none", then every other exception by name. */
export function exceptionMoveOptions(
  exceptions: ReadonlyArray<{ id: number; name: string }>,
  deleting: readonly number[],
  noneLabel: string,
): Array<{ value: string; label: string }> {
  return [
    { value: DETACH, label: noneLabel },
    ...exceptions
      .filter((e) => !deleting.includes(e.id))
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((e) => ({ value: String(e.id), label: e.name })),
  ];
}

/** `GET /device_exceptions/{id}/rules` (spec-notes §7). */
export function useRulesQuery(id: number) {
  return useEndpointQuery(deviceExceptionEndpoints.listRules, { params: { id } });
}

/** `POST /device_exceptions/{id}/rules` (spec-notes §7). */
export function useCreateRuleMutation(id: number) {
  return useEndpointMutation(deviceExceptionEndpoints.createRule, { params: { id } });
}

/** `PUT /device_exceptions/{id}/rules/{ruleId}` (spec-notes §7). */
export function useUpdateRuleMutation(id: number, ruleId: number) {
  return useEndpointMutation(deviceExceptionEndpoints.updateRule, { params: { id, ruleId } });
}

/**
 * Deletes rules as ONE `POST /batch` of `DELETE /device_exceptions/{id}/rules/{ruleId}`; the last
 * rule of an exception in use is refused with the spec-notes §5 text, shown per rule.
 */
export function useDeleteRulesMutation(id: number) {
  const batch = useBatchMutation({ invalidates: ['device_exceptions'] });
  return {
    isPending: batch.isPending,
    run: (ruleIds: readonly number[]) =>
      batch.mutateAsync(
        deleteItems(deviceExceptionEndpoints.removeRule, ruleIds, (ruleId) => ({ params: { id, ruleId } })),
      ),
  };
}
