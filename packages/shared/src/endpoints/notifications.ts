import { Role } from '../roles.ts';
import { idParamsSchema } from '../schemas/common.ts';
import {
  defaultNotificationsQuerySchema,
  policyNotificationsSchema,
  policyNotificationsUpdateSchema,
} from '../schemas/notifications.ts';
import { defineEndpoint } from './define.ts';

const tag = 'notifications';
/** Addressed by the policy's id (or the customer's default policy): core checks the policy within the caller's tenant in SQL. */
const access = { scope: 'owned', roles: [Role.System, Role.Msp, Role.Customer] } as const;

/**
 * A policy's category notifications (spec-notes §2 "/notifications" tabs, §3 "Notification
 * settings"): `/policies/{id}/notifications` and, for a customer's default policy,
 * `/policies/default/notifications?user_id=` — the spec names no route (docs/decisions.md
 * "Category notifications"). POST replaces the settings, as the spec's other settings forms do.
 */
export const notificationEndpoints = {
  getDefault: defineEndpoint({
    method: 'GET',
    path: '/policies/default/notifications',
    query: defaultNotificationsQuerySchema,
    response: policyNotificationsSchema,
    status: 200,
    access,
    tag,
    summary:
      "The category notifications of a customer's default policy (user_id; spec-notes §3 Notification settings).",
  }),
  setDefault: defineEndpoint({
    method: 'POST',
    path: '/policies/default/notifications',
    query: defaultNotificationsQuerySchema,
    body: policyNotificationsUpdateSchema,
    response: policyNotificationsSchema,
    status: 200,
    access,
    tag,
    summary: "Set the category notifications of a customer's default policy (spec-notes §3 Notification settings).",
  }),
  get: defineEndpoint({
    method: 'GET',
    path: '/policies/:id/notifications',
    params: idParamsSchema,
    response: policyNotificationsSchema,
    status: 200,
    access,
    tag,
    summary: "A policy's category notifications: categories, interval, period, recipients (spec-notes §3).",
  }),
  set: defineEndpoint({
    method: 'POST',
    path: '/policies/:id/notifications',
    params: idParamsSchema,
    body: policyNotificationsUpdateSchema,
    response: policyNotificationsSchema,
    status: 200,
    access,
    tag,
    summary: "Set a policy's category notifications; categories need a recipient (spec-notes §3, §5).",
  }),
} as const;
