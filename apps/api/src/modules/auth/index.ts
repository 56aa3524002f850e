import { defineModule } from '../../http/module.ts';
import { registerAuthRoutes, registerPublicAuthRoutes } from './routes.ts';

export { type JwtKey, type JwtKeyRing, jwtKeyRing, kidOf, loadJwtKeyRing, parseJwtKeys } from './keys.ts';
export { authenticateToken } from './service.ts';

/**
 * Login (public: `GET /oauth/authorize`, with the login throttle), logout and the access tokens
 * (keys, signing, verification, revocation). Admin rows are core's (`admins`): this module only
 * reads them through core's admins index.
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
  },
  topics: [],
});
