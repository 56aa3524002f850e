import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ChangeFeed, DatabaseHandle } from '@cordon/db';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { authRoutes, publicAuthRoutes } from './modules/auth/routes.ts';
import { customerRoutes } from './modules/customers/routes.ts';
import { locationRoutes } from './modules/locations/routes.ts';
import { mspRoutes } from './modules/msps/routes.ts';
import { policyRoutes } from './modules/policies/routes.ts';
import { statsRoutes } from './modules/stats/routes.ts';
import { registerAuthentication } from './plugins/auth.ts';
import { errorsPlugin } from './plugins/errors.ts';
import { registerTenancyGuard } from './plugins/tenancy.ts';
import type { AppDeps } from './types.ts';

/** Options of {@link buildApp}. */
export interface AppOptions {
  /** The open, migrated database. */
  db: DatabaseHandle;
  /** Change notifications; each mutating route publishes its topic after commit. */
  changes: ChangeFeed;
  /** HS256 signing key of access tokens (see `loadOrCreateJwtSecret`). */
  jwtSecret: Uint8Array;
  /** The built console; when set and present, served with an index.html fallback for non-API GETs. */
  consoleDir?: string;
  /** Fastify's logger option; default false. */
  logger?: boolean | object;
  /** Clock, epoch ms (tests); default Date.now. */
  now?: () => number;
}

/** The API prefix (spec §7). */
export const API_PREFIX = '/restapi';

/**
 * Builds the Cordon API (STYLE.md §8: a factory with explicit registration; it does not listen).
 * Order: errors (root, inherited by all) → OpenAPI → public context (login, docs) → authenticated
 * context (auth hook, tenancy guard, modules) → console static files.
 */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const deps: AppDeps = {
    handle: opts.db,
    changes: opts.changes,
    jwtSecret: opts.jwtSecret,
    now: opts.now ?? Date.now,
  };
  const app = Fastify({
    logger: opts.logger ?? false,
    routerOptions: { ignoreTrailingSlash: true },
    trustProxy: false,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest('tenant', null as never);
  // An empty JSON body is "no body" (clients send the header on bodyless POSTs such as logout);
  // anything else goes through Fastify's own parser (prototype-poisoning checks included).
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    return jsonParser(req, text, done);
  });

  const consoleDir = opts.consoleDir ? resolve(opts.consoleDir) : undefined;
  const serveConsole = consoleDir !== undefined && existsSync(resolve(consoleDir, 'index.html'));
  await app.register(errorsPlugin, {
    ...(serveConsole ? { fallback: (_req, reply) => reply.type('text/html').sendFile('index.html') } : {}),
  });

  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'Cordon API', version: '0.1.0', description: 'The /restapi of spec §7; quirks in docs/api.md.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });

  // Public context: no token.
  await app.register(
    async (pub) => {
      await publicAuthRoutes(pub, deps);
      pub.get('/docs/json', { schema: { hide: true } }, async () => app.swagger());
    },
    { prefix: API_PREFIX },
  );

  // Authenticated, tenant-scoped context (STYLE.md §9): every route in it is authenticated and guarded.
  await app.register(
    async (priv) => {
      registerAuthentication(priv, deps);
      registerTenancyGuard(priv, deps);
      await authRoutes(priv, deps);
      await mspRoutes(priv, deps);
      await customerRoutes(priv, deps);
      await policyRoutes(priv, deps);
      await locationRoutes(priv, deps);
      await statsRoutes(priv, deps);
    },
    { prefix: API_PREFIX },
  );

  if (serveConsole) {
    // Files found at start-up only (no wildcard route), so unknown paths reach the errors plugin's fallback.
    await app.register(fastifyStatic, { root: consoleDir, wildcard: false });
  }
  return app;
}
