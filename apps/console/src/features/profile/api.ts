import { apiTokenEndpoints, authEndpoints } from '@cordon/shared';
import { useQueryClient } from '@tanstack/react-query';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';
import { useSessionStore } from '../../session/context.ts';

/** `GET /auth/profile`: the signed-in admin's profile (spec-notes §3 "Auth user" and preferences). */
export function useProfileQuery() {
  return useEndpointQuery(authEndpoints.profile, {});
}

/** `PUT /auth/profile`: name, language and time zone. */
export function useUpdateProfileMutation() {
  return useEndpointMutation(authEndpoints.profileUpdate);
}

/** `PUT /auth/password`: every older token is refused, so the answer's new token replaces the session's. */
export function useChangePasswordMutation() {
  const session = useSessionStore();
  return useEndpointMutation(authEndpoints.passwordChange, {
    onSuccess: (answer) => {
      session.login(answer.access_token);
    },
  });
}

/** `POST /auth/logout/all`: every session of the admin ends, this one included. */
export function useLogoutEverywhereMutation() {
  const session = useSessionStore();
  const queryClient = useQueryClient();
  return useEndpointMutation(authEndpoints.logoutAll, {
    onSuccess: () => {
      session.clear();
      queryClient.clear();
    },
  });
}

/** `DELETE /auth/two-factor-auth` (spec-notes §7): 2FA off, with the current password. */
export function useDisableTwoFactorMutation() {
  return useEndpointMutation(authEndpoints.twoFactorDisable);
}

/** `POST /auth/two-factor-auth/recovery-codes`: ten new codes, the old ones void. */
export function useRegenerateCodesMutation() {
  return useEndpointMutation(authEndpoints.recoveryCodes);
}

/** `GET /auth/api-tokens`: the signed-in admin's API tokens (docs/api.md "API tokens"). */
export function useApiTokensQuery() {
  return useEndpointQuery(apiTokenEndpoints.list, {});
}

/** `POST /auth/api-tokens`: a new token, with the current password (and 2FA code); the answer holds the secret, once. */
export function useCreateApiTokenMutation() {
  return useEndpointMutation(apiTokenEndpoints.create);
}

/** `DELETE /auth/api-tokens/{id}`: revokes token `id`; it is refused from the next call on. */
export function useRevokeApiTokenMutation(id: number) {
  return useEndpointMutation(apiTokenEndpoints.revoke, { params: { id } });
}
