import { type WebhookOwnerQuery, webhookEndpoints } from '@cordon/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../api/context.ts';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';
import { invalidateResources } from '../../api/queryKeys.ts';

/** `GET /webhooks?msp_id=|user_id=`: the owner's endpoints. */
export function useWebhooksQuery(owner: WebhookOwnerQuery) {
  return useEndpointQuery(webhookEndpoints.list, { query: owner });
}

/** `POST /webhooks?…`: a new endpoint; the answer holds its secret, shown once. */
export function useCreateWebhookMutation(owner: WebhookOwnerQuery) {
  return useEndpointMutation(webhookEndpoints.create, { query: owner });
}

/** `PATCH /webhooks/{id}`: enable or disable (enabling clears a disablement). */
export function useUpdateWebhookMutation(id: number) {
  return useEndpointMutation(webhookEndpoints.update, { params: { id } });
}

/** `DELETE /webhooks/{id}`: the endpoint and its delivery log. */
export function useDeleteWebhookMutation(id: number) {
  return useEndpointMutation(webhookEndpoints.remove, { params: { id } });
}

/** `POST /webhooks/{id}/secret`: a new secret, shown once. */
export function useRotateSecretMutation(id: number) {
  return useEndpointMutation(webhookEndpoints.rotate, { params: { id } });
}

/** `POST /webhooks/{id}/test`: queue a ping. */
export function useTestWebhookMutation(id: number) {
  return useEndpointMutation(webhookEndpoints.test, { params: { id } });
}

/** `GET /webhooks/{id}/deliveries`: the latest 50 deliveries, newest first; refreshed every 10 s. */
export function useDeliveriesQuery(id: number) {
  return useEndpointQuery(
    webhookEndpoints.deliveries,
    { params: { id }, query: { limit: 50, offset: 0 } },
    { refetchInterval: 10_000 },
  );
}

/** `POST /webhooks/{id}/deliveries/{deliveryId}/redeliver`, the delivery's id as the variable. */
export function useRedeliverMutation(id: number) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: number) => api.call(webhookEndpoints.redeliver, { params: { id, deliveryId } }),
    onSuccess: () => invalidateResources(queryClient, ['webhooks']),
  });
}
