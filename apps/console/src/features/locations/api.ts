import {
  type DependantsResponse,
  type LocationType,
  locationEndpoints,
  type OtherLocationType,
  policyEndpoints,
} from '@cordon/shared';
import { keepPreviousData } from '@tanstack/react-query';
import { batchItem, useBatchMutation } from '../../api/batch.ts';
import { useApi } from '../../api/context.ts';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';

/** The location list's sort keys the page offers (docs/api.md "Locations, devices, groups and users"). */
export type LocationSortKey = 'name' | 'type';

/** One page of the location list (spec-notes §9): paging, sort, search text (empty = none) and the type shown. */
export interface LocationListPage {
  limit: number;
  offset: number;
  sortkey: LocationSortKey;
  sortdir: 'asc' | 'desc';
  filter: string;
}

/** `GET /users/{id}/locations/{type|all}` (spec-notes §7 Locations), one page; `policyId` keeps a policy's locations. */
export function useLocationsQuery(
  customerId: number,
  type: LocationType | 'all',
  page: LocationListPage,
  policyId?: number,
) {
  return useEndpointQuery(
    locationEndpoints.list,
    {
      params: { id: customerId, type },
      query: {
        limit: page.limit,
        offset: page.offset,
        sortkey: page.sortkey,
        sortdir: page.sortdir,
        ...(page.filter ? { filter: page.filter } : {}),
        ...(policyId !== undefined ? { policy_id: policyId } : {}),
      },
    },
    { placeholderData: keepPreviousData },
  );
}

/** `GET /users/{id}/locations/staticip/{locId}` (spec-notes §7 Locations). */
export function useStaticLocationQuery(customerId: number, locId: number, enabled: boolean) {
  return useEndpointQuery(locationEndpoints.getStatic, { params: { id: customerId, locId } }, { enabled });
}

/** `GET /users/{id}/locations/rate-limits`: the operator's UDP limits (docs/operations.md "Response-rate limiting"). */
export function useRateLimitsQuery(customerId: number) {
  return useEndpointQuery(locationEndpoints.rateLimits, { params: { id: customerId } });
}

/** `GET /users/{id}/locations/{type}/{locId}` for the non-static types (spec-notes §7 Locations). */
export function useOtherLocationQuery(customerId: number, type: OtherLocationType, locId: number, enabled: boolean) {
  return useEndpointQuery(locationEndpoints.get, { params: { id: customerId, type, locId } }, { enabled });
}

/**
 * `GET /policies?user_id=…` (spec-notes §7 Policies) without the default policy: the choices of the
 * location form's policy select (the default is the "Inherit default policy" choice).
 */
export function usePolicyChoicesQuery(customerId: number) {
  return useEndpointQuery(policyEndpoints.list, {
    query: { user_id: customerId, limit: 1000, offset: 0, sortkey: 'name', sortdir: 'asc', show_default: 'false' },
  });
}

/**
 * `POST /users/{id}/locations/staticip` (spec-notes §7 Locations) with `staticIpLocationCreateSchema`'s
 * output; the policies go stale too (each lists its locations).
 */
export function useCreateStaticIpLocationMutation(customerId: number) {
  return useEndpointMutation(locationEndpoints.createStatic, {
    params: { id: customerId },
    invalidates: ['policies'],
  });
}

/** `POST /users/{id}/locations/{type}` for the non-static types (spec-notes §7 Locations). */
export function useCreateOtherLocationMutation(customerId: number, type: OtherLocationType) {
  return useEndpointMutation(locationEndpoints.create, {
    params: { id: customerId, type },
    invalidates: ['policies'],
  });
}

/** `POST /users/{id}/locations/staticip/{locId}` (spec-notes §7): an update; `addresses` replaces the set. */
export function useUpdateStaticIpLocationMutation(customerId: number, locId: number) {
  return useEndpointMutation(locationEndpoints.updateStatic, {
    params: { id: customerId, locId },
    invalidates: ['policies'],
  });
}

/** `POST /users/{id}/locations/{type}/{locId}` (spec-notes §7): an update of a non-static location. */
export function useUpdateOtherLocationMutation(customerId: number, type: OtherLocationType, locId: number) {
  return useEndpointMutation(locationEndpoints.update, {
    params: { id: customerId, type, locId },
    invalidates: ['policies'],
  });
}

/**
 * `GET /users/{id}/locations/{type}/{locId}/dependants`: what a delete of the location breaks (its
 * addresses, the devices seen there in 24 hours; never refused: docs/api.md "Deletes of things in
 * use"), for the delete dialog. `typeOf` gives each location's type (undefined: nothing is read).
 */
export function useLocationDependantsFetcher(
  customerId: number,
  typeOf: (locId: number) => LocationType | undefined,
): (locId: number) => Promise<DependantsResponse> {
  const api = useApi();
  return async (locId) => {
    const type = typeOf(locId);
    if (type === undefined) return { in_use: false, dependants: {} };
    return api.call(locationEndpoints.dependants, { params: { id: customerId, type, locId } });
  };
}

/** The location id page's delete: `DELETE /users/{id}/locations/{type}/{locId}` (staticip has its own path). */
export function useDeleteLocationMutation(customerId: number, type: LocationType, locId: number) {
  const batch = useDeleteLocationsMutation(customerId);
  return { isPending: batch.isPending, run: () => batch.run([{ id: locId, type }]) };
}

/**
 * Deletes locations of customer `customerId` (any types) as ONE `POST /batch` of `DELETE
 * /users/{id}/locations/{type}/{locId}` (spec-notes §7 Batch, Locations); the policies list their
 * locations, so they go stale too.
 */
export function useDeleteLocationsMutation(customerId: number) {
  const batch = useBatchMutation({ invalidates: ['locations', 'policies', 'devices'] });
  return {
    isPending: batch.isPending,
    run: (targets: ReadonlyArray<{ id: number; type: LocationType }>) =>
      batch.mutateAsync(
        Object.fromEntries(
          targets.map((l) => [
            String(l.id),
            l.type === 'staticip'
              ? batchItem(locationEndpoints.removeStatic, { params: { id: customerId, locId: l.id } })
              : batchItem(locationEndpoints.remove, { params: { id: customerId, type: l.type, locId: l.id } }),
          ]),
        ),
      ),
  };
}
