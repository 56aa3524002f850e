import { existsSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import type { ChangeFeed, DatabaseHandle } from '@cordon/db';
import { ApiError } from '@cordon/shared';
import fastifyHelmet from '@fastify/helmet';
import fastifyStatic, { type SetHeadersResponse } from '@fastify/static';
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
  /**
   * The built console; when set and its index.html exists, its files are served (looked up per
   * request, so a rebuild needs no restart) with an index.html fallback for client routes.
   */
  consoleDir?: string;
  /** Fastify's logger option; default false. */
  logger?: boolean | object;
  /** Clock, epoch ms (tests); default Date.now. */
  now?: () => number;
}

/** The API prefix (spec §7). */
export const API_PREFIX = '/restapi';

/**
 * Security headers of every answer (DESIGN.md §14): a CSP that allows no inline or foreign script.
 * Styles may be inline because the console's components set CSS variables in style attributes.
 * No HSTS and no upgrade-insecure-requests: Cordon speaks plain HTTP on loopback and leaves TLS (and
 * HSTS) to the reverse proxy in front of it (docs/operations.md).
 */
const SECURITY_HEADERS = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  },
  hsts: false,
  crossOriginEmbedderPolicy: false,
} as const;

/** Cache lifetime of hashed build output: a year, and never revalidated (its name changes with its content). */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * True for a request of a file rather than a client route: anything under `/assets/` or whose last
 * segment has an extension. A missing one answers 404, never index.html: a tab left open across a
 * rebuild asks for old chunk names, and HTML parsed as JavaScript would fail obscurely.
 */
function isFileRequest(path: string): boolean {
  return path.startsWith('/assets/') || /\.[A-Za-z0-9]+$/.test(path.slice(path.lastIndexOf('/') + 1));
}

/**
 * Cache headers of console files: hashed `assets/*` are immutable; everything else (index.html, which
 * names the current chunks, and unhashed files) is revalidated on every use (`no-cache`).
 */
function consoleCacheHeaders(root: string): (res: SetHeadersResponse, path: string) => void {
  return (res, path) => {
    const inAssets = relative(root, path).startsWith(`assets${sep}`);
    res.setHeader('cache-control', inAssets ? IMMUTABLE : 'no-cache');
  };
}

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
    ...(serveConsole
      ? {
          fallback: (req, reply) =>
            isFileRequest(req.url.split('?')[0] ?? '/')
              ? reply.status(404).send(new ApiError('ERR_NOT_FOUND').toBody())
              : reply.type('text/html').sendFile('index.html'),
        }
      : {}),
  });

  await app.register(fastifyHelmet, { global: true, ...SECURITY_HEADERS });

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
    // One wildcard route looking files up per request, so a rebuild's new chunks are served without a
    // restart; a missing file goes to the not-found handler (index.html for client routes, else 404).
    // Cache-Control is set here alone (send's own header is off, it would overwrite ours).
    await app.register(fastifyStatic, {
      root: consoleDir,
      wildcard: true,
      cacheControl: false,
      setHeaders: consoleCacheHeaders(consoleDir),
    });
  }
  return app;
}
