import { authEndpoints, Constants, type TokenClaims } from '@cordon/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../api/context.ts';
import { useEndpointMutation } from '../../api/hooks.ts';
import { useSessionStore } from '../../session/context.ts';
import { codeChallengeS256, createCodeVerifier, createState } from './pkce.ts';

/** Credentials of one login attempt; `code` is the TOTP or recovery code once 2FA asked for it. */
export interface LoginInput {
  email: string;
  password: string;
  code?: string;
}

function basicAuth(email: string, password: string): string {
  const bytes = new TextEncoder().encode(`${email}:${password}`);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return `Basic ${btoa(binary)}`;
}

/**
 * `GET /oauth/authorize` (spec-notes §7 Auth; docs/api.md "Auth"): PKCE S256 with a fresh 128-hex verifier and
 * 40-character state, Basic credentials; stores the returned token and its claims in the session.
 * Not a plain endpoint mutation: it derives the PKCE pair first and starts a new session after.
 */
export function useLoginMutation() {
  const api = useApi();
  const session = useSessionStore();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (input: LoginInput): Promise<TokenClaims> => {
      const verifier = createCodeVerifier();
      const { access_token } = await api.call(authEndpoints.authorize, {
        query: {
          client_id: Constants.loginClientId,
          response_type: 'code',
          state: createState(),
          code_challenge: await codeChallengeS256(verifier),
          code_challenge_method: 'S256',
          code_verifier: verifier,
          redirect_uri: `${window.location.origin}/login`,
          code: input.code,
        },
        headers: { Authorization: basicAuth(input.email, input.password) },
      });
      queryClient.clear();
      return session.login(access_token);
    },
  });
}

/** `POST /auth/logout` (spec-notes §7): revokes the token; the session is cleared whatever the answer. */
export function useLogoutMutation() {
  const session = useSessionStore();
  const queryClient = useQueryClient();
  return useEndpointMutation(authEndpoints.logout, {
    onSettled: () => {
      session.clear();
      queryClient.clear();
    },
  });
}

/** `POST /auth/adminregister/` (spec-notes §7 Auth): completes an invitation from its mailed link. */
export function useRegisterMutation() {
  return useEndpointMutation(authEndpoints.register);
}

/** `POST /auth/password/forgot` (spec-notes §7 Auth): mails a reset link; the same answer for any address. */
export function usePasswordForgotMutation() {
  return useEndpointMutation(authEndpoints.passwordForgot);
}

/** `POST /auth/password` (spec-notes §7 Auth): a new password with a reset link's token. */
export function usePasswordResetMutation() {
  return useEndpointMutation(authEndpoints.passwordReset);
}
