import { customerEndpoints, statsEndpoints } from '@cordon/shared';
import { useEndpointQuery } from '../../api/hooks.ts';

/** `GET /users/{id}/stats/{date}` (spec-notes §7 Stats): requests, unique domains, allowed, blocked. */
export function useStatsOverviewQuery(customerId: number, date: string) {
  return useEndpointQuery(statsEndpoints.customerOverview, { params: { id: customerId, date } });
}

/** `GET /users/{id}/stats/traffic/{day}` (spec-notes §7 Stats): hourly allowed and blocked counts. */
export function useStatsTrafficQuery(customerId: number, day: string) {
  return useEndpointQuery(statsEndpoints.customerTraffic, { params: { id: customerId, day } });
}

/** `GET /users/{id}` (spec-notes §7 Customers): the customer in scope, for the overview's subtitle. */
export function useCustomerQuery(customerId: number) {
  return useEndpointQuery(customerEndpoints.get, { params: { id: customerId } });
}
