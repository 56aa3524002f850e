import { z } from 'zod';
import { Constants } from '../constants.ts';
import { Messages } from '../messages.ts';

/**
 * Query of `GET /restapi/oauth/authorize` (spec-notes §7 Auth; docs/api.md "Auth"). Credentials travel as
 * HTTP Basic; `code` is a TOTP or recovery code when 2FA is on.
 */
export const authorizeQuerySchema = z.object({
  client_id: z.literal(Constants.loginClientId, { error: 'Unknown client_id.' }),
  response_type: z.literal('code', { error: 'response_type must be code.' }),
  state: z
    .string()
    .length(Constants.oauthStateLength, { error: `state must be ${Constants.oauthStateLength} characters.` }),
  code_challenge: z.string().regex(/^[A-Za-z0-9_-]{43}$/, { error: 'code_challenge must be an S256 challenge.' }),
  code_challenge_method: z.literal('S256').optional(),
  code_verifier: z.string().regex(new RegExp(`^[0-9a-f]{${Constants.pkceVerifierLength}}$`), {
    error: `code_verifier must be ${Constants.pkceVerifierLength} hex characters.`,
  }),
  redirect_uri: z.string().min(1).max(2048),
  secret: z.string().optional(),
  code: z.string().optional(),
});
export type AuthorizeQuery = z.infer<typeof authorizeQuerySchema>;

export const authorizeResponseSchema = z.object({
  access_token: z.string(),
  backupCodes: z.array(z.string()).optional(),
});

/** Basic-credential fields as the login form holds them. */
export const loginFormSchema = z.object({
  email: z.string().trim().min(1, { error: Messages.required }).email({ error: Messages.invalidEmail }),
  password: z.string().min(1, { error: Messages.required }),
});
export type LoginForm = z.infer<typeof loginFormSchema>;

/**
 * Access-token claims, exactly the spec's (§3 "Token claims") plus jti/iat/exp (docs/api.md "Auth").
 * `msp_id`/`user_id` are null when the role has none; `user_id` is the customer id for role 4.
 */
export const tokenClaimsSchema = z.object({
  sub: z.string(),
  name: z.string(),
  email: z.string(),
  account_name: z.string(),
  '2fa_enabled': z.boolean(),
  vue_role: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)]),
  msp_id: z.number().int().nullable(),
  is_default: z.boolean(),
  user_id: z.number().int().nullable(),
  jti: z.string(),
  iat: z.number(),
  exp: z.number(),
});
export type TokenClaims = z.infer<typeof tokenClaimsSchema>;

/** Answer of `POST /auth/logout`: the token's `jti` is revoked from now on. */
export const logoutResponseSchema = z.object({ logged_out: z.literal(true) });
export type LogoutResponse = z.infer<typeof logoutResponseSchema>;
