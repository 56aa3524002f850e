import { statsOverviewSchema, statsTrafficSchema } from '@cordon/shared';
import { useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../api/queryKeys.ts';
import { useApi } from '../../app/context.ts';

/** `GET /users/{id}/stats/{date}` (spec §7 Stats): requests, unique domains, allowed, blocked. */
export function useStatsOverviewQuery(userId: number, date: string) {
  const api = useApi();
  return useQuery({
    queryKey: queryKeys.stats.overview(userId, date),
    queryFn: ({ signal }) => api.request(`/users/${userId}/stats/${date}`, statsOverviewSchema, { signal }),
  });
}

/** `GET /users/{id}/stats/traffic/{day}` (spec §7 Stats): hourly allowed and blocked counts. */
export function useStatsTrafficQuery(userId: number, day: string) {
  const api = useApi();
  return useQuery({
    queryKey: queryKeys.stats.traffic(userId, day),
    queryFn: ({ signal }) => api.request(`/users/${userId}/stats/traffic/${day}`, statsTrafficSchema, { signal }),
  });
}
