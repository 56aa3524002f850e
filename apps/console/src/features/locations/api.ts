import { listOf, locationSchema, type StaticIpLocationCreate } from '@cordon/shared';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../api/queryKeys.ts';
import { createdSchema } from '../../api/schemas.ts';
import { useApi } from '../../app/context.ts';

const locationListSchema = listOf(locationSchema);

/** `GET /users/{id}/locations/all` (spec §7 Locations). */
export function useLocationsQuery(userId: number) {
  const api = useApi();
  return useQuery({
    queryKey: queryKeys.locations.list(userId),
    queryFn: ({ signal }) => api.request(`/users/${userId}/locations/all`, locationListSchema, { signal }),
  });
}

/** `POST /users/{id}/locations/staticip` (spec §7 Locations) with `staticIpLocationCreateSchema`'s output. */
export function useCreateStaticIpLocationMutation(userId: number) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: StaticIpLocationCreate) =>
      api.request(`/users/${userId}/locations/staticip`, createdSchema, { method: 'POST', body }),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.locations.all }),
        queryClient.invalidateQueries({ queryKey: queryKeys.policies.all }),
      ]),
  });
}
