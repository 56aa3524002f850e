import { type LogStreamOwnerQuery, logStreamEndpoints } from '@cordon/shared';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';

/** `GET /log-streams?msp_id=`: the MSP's destinations; refreshed every 30 s (their delivery state). */
export function useLogStreamsQuery(owner: LogStreamOwnerQuery) {
  return useEndpointQuery(logStreamEndpoints.list, { query: owner }, { refetchInterval: 30_000 });
}

/** `POST /log-streams?msp_id=`: a new destination. */
export function useCreateLogStreamMutation(owner: LogStreamOwnerQuery) {
  return useEndpointMutation(logStreamEndpoints.create, { query: owner });
}

/** `PATCH /log-streams/{id}`: edit, enable or disable. */
export function useUpdateLogStreamMutation(id: number) {
  return useEndpointMutation(logStreamEndpoints.update, { params: { id } });
}

/** `DELETE /log-streams/{id}`. */
export function useDeleteLogStreamMutation(id: number) {
  return useEndpointMutation(logStreamEndpoints.remove, { params: { id } });
}
