import { notificationEndpoints } from '@cordon/shared';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';

/**
 * Whose notifications a form edits: a policy by its id, or a customer's default policy
 * (`/policies/default/notifications?user_id=`; docs/api.md "Category notifications").
 */
export type NotificationsOwner = { kind: 'policy'; policyId: number } | { kind: 'default'; userId: number };

/** `GET /policies/{id}/notifications` or `GET /policies/default/notifications?user_id=` (spec-notes §3 "Notification settings"). */
export function useNotificationsQuery(owner: NotificationsOwner) {
  const byPolicy = useEndpointQuery(
    notificationEndpoints.get,
    { params: { id: owner.kind === 'policy' ? owner.policyId : 0 } },
    { enabled: owner.kind === 'policy' },
  );
  const byDefault = useEndpointQuery(
    notificationEndpoints.getDefault,
    { query: { user_id: owner.kind === 'default' ? owner.userId : 0 } },
    { enabled: owner.kind === 'default' },
  );
  return owner.kind === 'policy' ? byPolicy : byDefault;
}

/** `POST /policies/{id}/notifications` or `POST /policies/default/notifications?user_id=`: replaces the settings. */
export function useSaveNotificationsMutation(owner: NotificationsOwner) {
  const byPolicy = useEndpointMutation(notificationEndpoints.set, {
    params: { id: owner.kind === 'policy' ? owner.policyId : 0 },
  });
  const byDefault = useEndpointMutation(notificationEndpoints.setDefault, {
    query: { user_id: owner.kind === 'default' ? owner.userId : 0 },
  });
  return owner.kind === 'policy' ? byPolicy : byDefault;
}
