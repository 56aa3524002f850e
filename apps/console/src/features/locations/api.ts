import { Endpoints } from '@cordon/shared';
import { deleteItems, useBatchMutation } from '../../api/batch.ts';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';

/** `GET /users/{id}/locations/all` (spec §7 Locations). */
export function useLocationsQuery(customerId: number) {
  return useEndpointQuery(Endpoints.locations.list, { params: { id: customerId, type: 'all' } });
}

/**
 * `GET /policies?user_id=…` (spec §7 Policies) without the default policy: the choices of the
 * location form's policy select (the default is the "Inherit default policy" choice).
 */
export function usePolicyChoicesQuery(customerId: number) {
  return useEndpointQuery(Endpoints.policies.list, {
    query: { user_id: customerId, limit: 1000, offset: 0, sortkey: 'name', sortdir: 'asc', show_default: 'false' },
  });
}

/**
 * `POST /users/{id}/locations/staticip` (spec §7 Locations) with `staticIpLocationCreateSchema`'s
 * output; the policies go stale too (each lists its locations).
 */
export function useCreateStaticIpLocationMutation(customerId: number) {
  return useEndpointMutation(Endpoints.locations.createStatic, {
    params: { id: customerId },
    invalidates: ['policies'],
  });
}

/**
 * Deletes static-IP locations of customer `customerId` as ONE `POST /batch` of
 * `DELETE /users/{id}/locations/staticip/{locId}` (spec §7 Batch, Locations); the policies list their
 * locations, so they go stale too.
 */
export function useDeleteLocationsMutation(customerId: number) {
  const batch = useBatchMutation({ invalidates: ['locations', 'policies'] });
  return {
    isPending: batch.isPending,
    run: (ids: readonly number[]) =>
      batch.mutateAsync(
        deleteItems(Endpoints.locations.removeStatic, ids, (locId) => ({ params: { id: customerId, locId } })),
      ),
  };
}
