import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { type ChangeFeed, createReadPool, type DatabaseHandle, type ReadPoolOptions } from '@cordon/db';
import type { SecretBox } from '@cordon/pki';
import { ApiError, type ClaimLimits, DEFAULT_CLAIM_LIMITS } from '@cordon/shared';
import fastifyStatic, { type SetHeadersResponse } from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { BatchRate } from './lib/batch-budget.ts';
import type { LoginThrottleLimits } from './lib/limiter.ts';
import { type JwtKeyRing, jwtKeyRing } from './modules/auth/index.ts';
import { API_MODULES } from './modules.ts';
import { registerAuthentication } from './plugins/auth.ts';
import { errorsPlugin } from './plugins/errors.ts';
import {
  addNoStore,
  captureSecurityHeaders,
  clientErrorHandler,
  frameworkErrorHandler,
  loggerOptions,
  type TrustProxy,
  trustProxyOption,
} from './plugins/hardening.ts';
import { registerTenancyGuard } from './plugins/tenancy.ts';
import type { AppDeps, DnsRateLimits, PhoneSetupSettings } from './types.ts';

/** Options of {@link buildApp}. */
export interface AppOptions {
  /** The open, migrated database. */
  db: DatabaseHandle;
  /** Change notifications; each mutating route publishes its topic after commit. */
  changes: ChangeFeed;
  /** Access-token keys, the first signing (see `loadJwtKeyRing`); required unless `jwtSecret` is given. */
  jwtKeys?: JwtKeyRing;
  /** One HS256 key (at least 32 bytes), as a ring of that key alone (tests, embedders); `jwtKeys` wins. */
  jwtSecret?: Uint8Array;
  /**
   * Fastify's `trustProxy` (`--trust-proxy`): false (default) takes the client address from the socket;
   * true, a hop count, or addresses/CIDRs of trusted proxies take it from `X-Forwarded-For`. It keys
   * login throttling (docs/security.md "Logins").
   */
  trustProxy?: TrustProxy;
  /** Login throttling limits (tests); default `LOGIN_THROTTLE`. */
  loginThrottle?: LoginThrottleLimits;
  /** Each admin's `/batch` sub-request budget per API process (tests); default `BATCH_RATE` (docs/api.md "Batch"). */
  batchRate?: BatchRate;
  /**
   * The built console; when set and its index.html exists, its files are served (looked up per
   * request, so a rebuild needs no restart) with an index.html fallback for client routes.
   */
  consoleDir?: string;
  /** Fastify's logger option (pino options); default false. Secrets are redacted whatever it says. */
  logger?: boolean | object;
  /** Clock, epoch ms (tests); default Date.now. */
  now?: () => number;
  /** Address-claim limits of MSP and customer admins (docs/security.md "Address claims"); unset fields take {@link DEFAULT_CLAIM_LIMITS}. */
  claims?: Partial<ClaimLimits>;
  /** The most entries one domain list may hold (docs/operations.md "List sizes"); default core's `DEFAULT_LIST_LIMITS`. */
  listLimits?: { maxEntries: number };
  /** Cordon's upstream resolvers, which the DNS lookup tool asks (spec-notes §7 `GET /tools/dns`); default: the host's. */
  upstreams?: readonly { host: string; port: number }[];
  /** The public DoH base URL and DoT host-name suffix the console shows and Apple profiles use (docs/agent.md "Phones"); default: neither. */
  phoneSetup?: PhoneSetupSettings;
  /** The data plane's UDP limits the console shows (`--location-rate-limit`, `--rrl-rate`); default the resolver's defaults. */
  dnsRateLimits?: DnsRateLimits;
  /**
   * Seals the secrets the API stores (SMTP passwords, TOTP secrets) with the deployment's secret kept
   * outside the database (`createSecretBox` of `@cordon/pki`; `cordon serve` gives one).
   */
  secrets?: SecretBox;
  /**
   * The heavy reads' pool (the history search; docs/operations.md "Heavy reads"): how many run at
   * once (read threads on a SQLite file, connections on PostgreSQL) and their time bound; default
   * @cordon/db's `READ_POOL_SIZE` and `READ_TIMEOUT_MS`. Closed with the app.
   */
  heavyReads?: ReadPoolOptions;
  /**
   * Told of every answered request: the method, the route's pattern (`/restapi/customers/:id`; a
   * request no route matched is `unmatched`), the status, the seconds from arrival to response and
   * the request id (the metrics' request histogram and the slow-request log, docs/operations.md
   * "Monitoring", "Logs"). Default: nothing.
   */
  observeRequest?: (method: string, route: string, status: number, seconds: number, requestId: string) => void;
}

/** The API prefix (spec-notes §7). */
export const API_PREFIX = '/restapi';

/**
 * Security headers of every answer (docs/security.md): a CSP that allows no inline or foreign script.
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
 * names the current chunks, and unhashed files) is revalidated on every use (`no-cache`); all vary
 * by `Accept-Encoding` (precompressed copies).
 */
function consoleCacheHeaders(root: string): (res: SetHeadersResponse, path: string) => void {
  return (res, path) => {
    const inAssets = relative(root, path).startsWith(`assets${sep}`);
    res.setHeader('cache-control', inAssets ? IMMUTABLE : 'no-cache');
    // A cache must key the precompressed copies by the encoding asked for (RFC 9110 §12.5.5).
    res.setHeader('vary', 'accept-encoding');
  };
}

/**
 * Builds the Cordon API: a factory with explicit registration; it does not listen
 * (docs/architecture.md "Layers"). Order: errors (root, inherited by all) → OpenAPI → public context
 * (the modules' public routes — login — and the docs) → authenticated context (auth hook, tenancy
 * guard, the modules of `API_MODULES` in order) → console static files.
 * @throws Error when neither `jwtKeys` nor `jwtSecret` gives a key, or the key is shorter than 32 bytes
 */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const deps: AppDeps = {
    handle: opts.db,
    changes: opts.changes,
    jwtKeys: opts.jwtKeys ?? jwtKeyRing(opts.jwtSecret ? [opts.jwtSecret] : []),
    loginThrottle: opts.loginThrottle,
    batchRate: opts.batchRate,
    now: opts.now ?? Date.now,
    claims: { ...DEFAULT_CLAIM_LIMITS, ...opts.claims },
    upstreams: opts.upstreams,
    ...(opts.listLimits ? { listLimits: opts.listLimits } : {}),
    ...(opts.phoneSetup ? { phoneSetup: opts.phoneSetup } : {}),
    ...(opts.dnsRateLimits ? { dnsRateLimits: opts.dnsRateLimits } : {}),
    ...(opts.secrets ? { secrets: opts.secrets } : {}),
    // Heavy reads run off this thread's loop, within a time bound (issue 30; docs/decisions.md "Heavy reads").
    readPool: createReadPool(opts.db, opts.heavyReads),
  };
  // Answers written before Fastify's hooks run carry the same security headers as the rest.
  const securityHeaders = await captureSecurityHeaders({ global: true, ...SECURITY_HEADERS });
  const app = Fastify({
    logger: loggerOptions(opts.logger),
    // A random id per request, never the client's (docs/operations.md "Logs"): in every log line of
    // the request and in the answer's X-Request-Id, so an operator finds a user's request.
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true },
    trustProxy: trustProxyOption(opts.trustProxy ?? false),
    frameworkErrors: frameworkErrorHandler(securityHeaders) as FastifyServerOptions['frameworkErrors'],
    clientErrorHandler: clientErrorHandler(securityHeaders),
  });
  const observe = opts.observeRequest;
  if (observe) {
    // On the root before any plugin, so every route and the not-found handler inherit it.
    app.addHook('onResponse', async (req, reply) => {
      observe(req.method, req.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000, req.id);
    });
  }
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
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

  // Helmet's headers, computed once by Helmet itself (`captureSecurityHeaders`): @fastify/helmet builds
  // Helmet's middleware again on every request, its CSP parsed each time, ≈ 4 % of the API's busy
  // CPU on a light route (bench/results/history.md "The API's token key imported once, and this round's API reads").
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(securityHeaders);
    done();
  });

  await app.register(fastifySwagger, {
    openapi: {
      info: {
        title: 'Cordon API',
        version: '0.1.0',
        description: 'The /restapi of spec-notes §7; quirks in docs/api.md.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });

  // Public context: no token.
  await app.register(
    async (pub) => {
      addNoStore(pub);
      for (const module of API_MODULES) await module.registerPublic?.(pub, deps);
      pub.get('/docs/json', { schema: { hide: true } }, async () => app.swagger());
    },
    { prefix: API_PREFIX },
  );

  // Authenticated, tenant-scoped context: every route in it is authenticated and guarded.
  await app.register(
    async (priv) => {
      addNoStore(priv);
      registerAuthentication(priv, deps);
      registerTenancyGuard(priv, deps);
      for (const module of API_MODULES) await module.register(priv, deps);
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
      // The console build writes `.br` and `.gz` beside each text file (apps/console/vite.config.ts):
      // served as-is to a client that accepts them (RFC 9110 §8.4, §12.5.3), with `Vary: Accept-Encoding`.
      preCompressed: true,
      setHeaders: consoleCacheHeaders(consoleDir),
    });
  }
  app.addHook('onClose', async () => {
    await deps.readPool?.close();
  });
  return app;
}
