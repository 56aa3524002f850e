import { adminEndpoints, authEndpoints } from '@cordon/shared';
import { keepPreviousData } from '@tanstack/react-query';
import { deleteItems, useBatchMutation } from '../../api/batch.ts';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';

/** Whose administrators a page shows: the system's (and sales), one MSP's, or one customer's. */
export type AdminLevel = { kind: 'system' } | { kind: 'msp'; mspId: number } | { kind: 'customer'; customerId: number };

/** The `msp_id` / `user_id` of `GET /admin` and `POST /admin/` for a level (spec-notes §7 Admins). */
export function levelQuery(level: AdminLevel): { msp_id?: number; user_id?: number } {
  if (level.kind === 'msp') return { msp_id: level.mspId };
  if (level.kind === 'customer') return { user_id: level.customerId };
  return {};
}

/** The administrators list's sort keys the page offers (docs/api.md "Administrators"). */
export type AdminSortKey = 'name' | 'email' | 'role' | 'last_login_at';

/** One page of the administrators list (spec-notes §9). */
export interface AdminListPage {
  limit: number;
  offset: number;
  sortkey: AdminSortKey;
  sortdir: 'asc' | 'desc';
  filter: string;
}

/** `GET /admin?msp_id=&user_id=` (spec-notes §7 Admins). */
export function useAdminsQuery(level: AdminLevel, page: AdminListPage) {
  return useEndpointQuery(
    adminEndpoints.list,
    {
      query: {
        ...levelQuery(level),
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

/** `GET /admin/{id}` (spec-notes §7 Admins). */
export function useAdminQuery(id: number) {
  return useEndpointQuery(adminEndpoints.get, { params: { id } });
}

/** `POST /admin/` (spec-notes §7 Admins): the new admin gets an invitation mail. */
export function useCreateAdminMutation() {
  return useEndpointMutation(adminEndpoints.create);
}

/** `PUT /admin/{id}` (spec-notes §7 Admins). */
export function useUpdateAdminMutation(id: number) {
  return useEndpointMutation(adminEndpoints.update, { params: { id } });
}

/** `DELETE /admin/{id}` (docs/api.md "Administrators"). */
export function useDeleteAdminMutation(id: number) {
  return useEndpointMutation(adminEndpoints.remove, { params: { id } });
}

/** `POST /admin/{id}/invite`: a new invitation link for a pending admin. */
export function useResendInvitationMutation(id: number) {
  return useEndpointMutation(adminEndpoints.invite, { params: { id } });
}

/** `DELETE /auth/{id}/two-factor-auth/reset` (spec-notes §7 Auth): the admin's 2FA off; it enrols again. */
export function useResetTwoFactorMutation(id: number) {
  return useEndpointMutation(authEndpoints.twoFactorReset, { params: { id }, invalidates: ['admins'] });
}

/** Deletes admins as ONE `POST /batch` of `DELETE /admin/{id}` (spec-notes §7 Batch: multi-delete). */
export function useDeleteAdminsMutation() {
  const batch = useBatchMutation({ invalidates: ['admins'] });
  return {
    isPending: batch.isPending,
    run: (ids: readonly number[]) =>
      batch.mutateAsync(deleteItems(adminEndpoints.remove, ids, (id) => ({ params: { id } }))),
  };
}

/** `GET /auth/msp/{id}/two-factor-auth/enforce` (spec-notes §7: `enforce_twofa`). */
export function useEnforcementQuery(mspId: number) {
  return useEndpointQuery(authEndpoints.enforceGet, { params: { id: mspId } });
}

/** `PUT /auth/msp/{id}/two-factor-auth/enforce` (spec-notes §7: `enforce`). */
export function useSetEnforcementMutation(mspId: number) {
  return useEndpointMutation(authEndpoints.enforceSet, { params: { id: mspId } });
}
