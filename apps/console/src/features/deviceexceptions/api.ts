import { Endpoints } from '@cordon/shared';
import { keepPreviousData } from '@tanstack/react-query';
import { deleteItems, useBatchMutation } from '../../api/batch.ts';
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
    Endpoints.deviceexceptions.list,
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
  return useEndpointMutation(Endpoints.deviceexceptions.create, { query: { user_id: customerId } });
}

/** `GET /device_exceptions/{id}` (spec-notes §7). */
export function useExceptionQuery(id: number) {
  return useEndpointQuery(Endpoints.deviceexceptions.get, { params: { id } });
}

/** `PUT /device_exceptions/{id}` (spec-notes §7). */
export function useUpdateExceptionMutation(id: number) {
  return useEndpointMutation(Endpoints.deviceexceptions.update, { params: { id } });
}

/** Deletes device exceptions as ONE `POST /batch` of `DELETE /device_exceptions/{id}` (spec-notes §7 Batch). */
export function useDeleteExceptionsMutation() {
  const batch = useBatchMutation({ invalidates: ['device_exceptions', 'devices'] });
  return {
    isPending: batch.isPending,
    run: (ids: readonly number[]) =>
      batch.mutateAsync(deleteItems(Endpoints.deviceexceptions.remove, ids, (id) => ({ params: { id } }))),
  };
}

/** `GET /device_exceptions/{id}/rules` (spec-notes §7). */
export function useRulesQuery(id: number) {
  return useEndpointQuery(Endpoints.deviceexceptions.listRules, { params: { id } });
}

/** `POST /device_exceptions/{id}/rules` (spec-notes §7). */
export function useCreateRuleMutation(id: number) {
  return useEndpointMutation(Endpoints.deviceexceptions.createRule, { params: { id } });
}

/** `PUT /device_exceptions/{id}/rules/{ruleId}` (spec-notes §7). */
export function useUpdateRuleMutation(id: number, ruleId: number) {
  return useEndpointMutation(Endpoints.deviceexceptions.updateRule, { params: { id, ruleId } });
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
        deleteItems(Endpoints.deviceexceptions.removeRule, ruleIds, (ruleId) => ({ params: { id, ruleId } })),
      ),
  };
}
