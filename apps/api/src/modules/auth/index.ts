import { defineModule } from '../../http/module.ts';
import { registerAuthRoutes, registerPublicAuthRoutes } from './routes.ts';

export { type JwtKey, type JwtKeyRing, jwtKeyRing, kidOf, loadJwtKeyRing, parseJwtKeys } from './keys.ts';
export { authenticateToken } from './service.ts';

const ownOnly = (what: string) =>
  [{ note: `acts on the caller's own account only (${what}): no foreign id to try` }] as const;

/**
 * Login (public: `GET /oauth/authorize`, with the login throttle and the second factor), the
 * invitation and password-reset links, 2FA enrolment, logout, the profile, an admin's 2FA reset
 * and an MSP's 2FA enforcement, and the access tokens (keys, signing, verification, revocation,
 * generations). Admin rows are core's (`admins`): this module only calls core's admins index.
 */
export const authModule = defineModule({
  name: 'auth',
  resources: ['auth'],
  registerPublic: registerPublicAuthRoutes,
  register: registerAuthRoutes,
  isolationCases: {
    'auth.logout': [
      {
        note: "acts on the caller's own token only: no foreign id to try (a call would log the fixture out)",
      },
    ],
    'auth.logoutAll': ownOnly('a call would log the fixture out everywhere'),
    'auth.passwordChange': ownOnly('its own password, checked against the current one'),
    'auth.profile': ownOnly('its own profile'),
    'auth.profileUpdate': ownOnly('its own profile'),
    'auth.twoFactorDisable': ownOnly('its own 2FA, with its password'),
    'auth.recoveryCodes': ownOnly('its own recovery codes'),
    'auth.twoFactorReset': [
      { params: (_, b) => ({ id: b.mspAdminId }), msp: 404, customer: 404, sales: 403 },
      { note: "the foreign customer's admin", params: (_, b) => ({ id: b.customerAdminId }), msp: 404, customer: 404 },
    ],
    'auth.enforceGet': [{ params: (_, b) => ({ id: b.mspId }), msp: 404, customer: 403, sales: 403 }],
    'auth.enforceSet': [
      { params: (_, b) => ({ id: b.mspId }), body: () => ({ enforce: true }), msp: 404, customer: 403, sales: 403 },
    ],
  },
  topics: [],
});
