import { ALL_ROLES } from '../roles.ts';
import { authorizeQuerySchema, authorizeResponseSchema, logoutResponseSchema } from '../schemas/auth.ts';
import { defineEndpoint } from './define.ts';

/** Login and logout (spec §7 "Auth"; docs/api.md "Auth"). */
export const authEndpoints = {
  /** Login: HTTP Basic credentials plus a PKCE (S256) pair; answers an access token. */
  authorize: defineEndpoint({
    method: 'GET',
    path: '/oauth/authorize',
    query: authorizeQuerySchema,
    response: authorizeResponseSchema,
    status: 200,
    access: { public: true },
    tag: 'auth',
    summary: 'Login (spec §7 Auth): Basic credentials and a PKCE pair → access token.',
  }),
  logout: defineEndpoint({
    method: 'POST',
    path: '/auth/logout',
    response: logoutResponseSchema,
    status: 200,
    access: { scope: 'any', roles: ALL_ROLES },
    tag: 'auth',
    summary: "Logout (spec §7 Auth): revokes the caller's token.",
  }),
} as const;
