import { createHash, randomBytes } from 'node:crypto';
import { type ChangeFeed, type ChangeTopic, createChangeFeed, type DatabaseHandle } from '@cordon/db';
import { createTestDatabase } from '@cordon/db/testing';
import { createSecretBox, type SecretBox } from '@cordon/pki';
import type { ClaimLimits } from '@cordon/shared';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, ensureSystemAdmin } from '../src/index.ts';

/** The system admin every test app is seeded with. */
export const ADMIN = { email: 'root@cordon.test', password: 'Sup3r-secret' } as const;

/** A test app on a fresh database, with the topics published so far and a logged-in system admin. */
export interface TestApp {
  app: FastifyInstance;
  handle: DatabaseHandle;
  changes: ChangeFeed;
  /** Every topic published, in order. */
  published: ChangeTopic[];
  /** The system admin's bearer token. */
  rootToken: string;
  /** Mutable clock, epoch ms. */
  clock: { now: number };
  /** The app's secret box (stored SMTP passwords and TOTP secrets are sealed with it). */
  secrets: SecretBox;
  close(): Promise<void>;
}

/** A real PKCE pair as the console makes it: a 128-hex verifier and its S256 challenge; a 40-char state. */
export function pkcePair(): { code_verifier: string; code_challenge: string; state: string } {
  const code_verifier = randomBytes(64).toString('hex');
  const code_challenge = createHash('sha256').update(code_verifier).digest('base64url');
  return { code_verifier, code_challenge, state: randomBytes(20).toString('hex') };
}

/** The authorize query for a login, with overrides. */
export function authorizeQuery(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    client_id: '2',
    response_type: 'code',
    redirect_uri: 'http://localhost/callback',
    code_challenge_method: 'S256',
    ...pkcePair(),
    ...overrides,
  };
}

/** `Authorization: Basic …` of an e-mail/password pair. */
export function basic(email: string, password: string): string {
  return `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`;
}

/** Logs in through the real authorize route; returns the raw response. */
export function authorize(app: FastifyInstance, email: string, password: string, query = authorizeQuery()) {
  return app.inject({
    method: 'GET',
    url: '/restapi/oauth/authorize',
    query,
    headers: { authorization: basic(email, password) },
  });
}

/**
 * Logs in and returns the access token.
 * @throws Error with the response body when the login fails
 */
export async function login(app: FastifyInstance, email: string, password: string): Promise<string> {
  const res = await authorize(app, email, password);
  if (res.statusCode !== 200) throw new Error(`login ${email} failed: ${res.statusCode} ${res.body}`);
  return res.json().access_token as string;
}

/** Options of {@link createTestApp}. */
export interface TestAppOptions {
  /** Address-claim limits of MSP and customer admins; default the operator defaults (docs/security.md). */
  claims?: Partial<ClaimLimits>;
  /** Upstream resolvers the DNS lookup tool asks (a loopback test server). */
  upstreams?: readonly { host: string; port: number }[];
  /** The phone set-up settings (docs/agent.md "Phones"); default {@link TEST_PHONE_SETUP}, null: none set. */
  phoneSetup?: { dohUrl: string | null; dotHostname: string | null } | null;
  /** The domain-list limits (docs/operations.md "List sizes"); default core's. */
  listLimits?: { maxEntries: number };
  /** The data plane's UDP limits the API shows (docs/operations.md "Response-rate limiting"); default the resolver's. */
  dnsRateLimits?: { locationQps: number; rrlQps: number };
}

/** The public DoH URL and DoT host-name suffix test apps are given unless a test says otherwise. */
export const TEST_PHONE_SETUP = { dohUrl: 'https://dns.cordon.test', dotHostname: 'dot.cordon.test' } as const;

/** Builds the app on a fresh database of `dialect`, seeds the system admin and logs it in. */
export async function createTestApp(dialect: 'sqlite' | 'postgres', opts: TestAppOptions = {}): Promise<TestApp> {
  const handle = await createTestDatabase(dialect);
  const changes = createChangeFeed(handle);
  const published: ChangeTopic[] = [];
  changes.subscribe((t) => published.push(t));
  const clock = { now: Date.UTC(2025, 5, 15, 12, 0, 0) };
  await ensureSystemAdmin(handle, { email: ADMIN.email, password: ADMIN.password });
  const secrets = createSecretBox(randomBytes(32));
  const app = await buildApp({
    db: handle,
    changes,
    jwtSecret: new Uint8Array(randomBytes(32)),
    secrets,
    now: () => clock.now,
    ...(opts.claims ? { claims: opts.claims } : {}),
    ...(opts.upstreams ? { upstreams: opts.upstreams } : {}),
    ...(opts.listLimits ? { listLimits: opts.listLimits } : {}),
    ...(opts.dnsRateLimits ? { dnsRateLimits: opts.dnsRateLimits } : {}),
    ...(opts.phoneSetup === null ? {} : { phoneSetup: opts.phoneSetup ?? TEST_PHONE_SETUP }),
  });
  await app.ready();
  const rootToken = await login(app, ADMIN.email, ADMIN.password);
  return {
    app,
    handle,
    changes,
    published,
    rootToken,
    clock,
    secrets,
    async close() {
      await app.close();
      await changes.close();
      await handle.close();
    },
  };
}

/** `app.inject` with a bearer token; `body` is sent as JSON. */
export function call(
  app: FastifyInstance,
  token: string | undefined,
  method: InjectOptions['method'],
  url: string,
  body?: unknown,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(body === undefined ? {} : { payload: body as InjectOptions['payload'] }),
  });
}

/** Decodes a JWT's payload without verifying it (tests read the claims). */
export function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
}

/** One tenant of the isolation fixture: an MSP with a customer, a location, a policy, and admins of roles 3 and 4. */
export interface TenantFixture {
  mspId: number;
  customerId: number;
  defaultPolicyId: number;
  policyId: number;
  locationId: number;
  addressId: number;
  staticRouteId: number;
  /** A cloud key of the customer (`Tenant n key`). */
  cloudKeyId: number;
  /** The MSP's primary admin (role 3, `msp<n>@example.test`). */
  mspAdminId: number;
  /** The customer's primary admin (role 4, `cust<n>@example.test`). */
  customerAdminId: number;
  mspToken: string;
  customerToken: string;
}

/**
 * Creates one tenant through the API as the system admin. `n` makes names, e-mails and addresses unique.
 * @throws Error when any call fails
 */
export async function createTenant(t: TestApp, n: number): Promise<TenantFixture> {
  const ok = async (res: LightMyRequestResponse) => {
    if (res.statusCode >= 300) throw new Error(`${res.statusCode} ${res.body}`);
    return res.json();
  };
  const password = 'Passw0rd!';
  const msp = await ok(
    await call(t.app, t.rootToken, 'POST', '/restapi/msp', {
      name: `MSP ${n}`,
      company_name: `MSP ${n} Ltd`,
      admin_email: `msp${n}@example.test`,
      admin_password: password,
    }),
  );
  const customer = await ok(
    await call(t.app, t.rootToken, 'POST', '/restapi/users/', {
      accountName: `Customer ${n}`,
      msp_id: msp.id,
      timezone: 'Europe/Berlin',
      admin_email: `cust${n}@example.test`,
      admin_password: password,
    }),
  );
  const policy = await ok(
    await call(t.app, t.rootToken, 'POST', '/restapi/policies', {
      user_id: customer.id,
      name: `Strict ${n}`,
      filtering_level: 'high',
    }),
  );
  const location = await ok(
    await call(t.app, t.rootToken, 'POST', `/restapi/users/${customer.id}/locations/staticip`, {
      name: `Office ${n}`,
      policy_id: policy.id,
      addresses: [`10.${n}.0.0/16`],
    }),
  );
  const route = await ok(
    await call(t.app, t.rootToken, 'POST', `/restapi/staticroutes?user_id=${customer.id}`, {
      domain: `corp${n}.example`,
      resolver: `10.${n}.0.53`,
    }),
  );
  const cloudKey = await ok(
    await call(t.app, t.rootToken, 'POST', `/restapi/users/${customer.id}/cloudkeys`, { key: `Tenant ${n} key` }),
  );
  return {
    mspId: msp.id,
    customerId: customer.id,
    defaultPolicyId: customer.default_policy_id,
    policyId: policy.id,
    locationId: location.id,
    addressId: location.addresses[0].id,
    staticRouteId: route.id,
    cloudKeyId: cloudKey.id,
    mspAdminId: await adminIdOf(t, `msp${n}@example.test`),
    customerAdminId: await adminIdOf(t, `cust${n}@example.test`),
    mspToken: await login(t.app, `msp${n}@example.test`, password),
    customerToken: await login(t.app, `cust${n}@example.test`, password),
  };
}

/** The ids {@link createEnvironment} makes. */
export interface EnvironmentFixture {
  /** A virtual location of the customer (`Virtual n`). */
  virtualLocationId: number;
  /** A device enrolled with the customer's install key, and its internal user (`user<n>`) reported by a heartbeat. */
  deviceId: number;
  internalUserId: number;
  /** A device exception of the customer with one rule, and a group. */
  deviceExceptionId: number;
  ruleId: number;
  groupId: number;
}

/**
 * The environment of one tenant (issue 8), through the API as the system admin and the agent: a
 * virtual location, a device enrolled with the install key whose heartbeat reports `user<n>`, a
 * device exception with one rule, and a group.
 * @throws Error when any call fails
 */
export async function createEnvironment(t: TestApp, customerId: number, n: number): Promise<EnvironmentFixture> {
  const ok = async (res: LightMyRequestResponse) => {
    if (res.statusCode >= 300) throw new Error(`${res.statusCode} ${res.body}`);
    return res.json();
  };
  const root = (method: string, url: string, body?: unknown) => call(t.app, t.rootToken, method, url, body);
  const virtual = await ok(
    await root('POST', `/restapi/users/${customerId}/locations/virtual`, { name: `Virtual ${n}` }),
  );
  const config = await ok(await root('GET', `/restapi/users/${customerId}/devices/config`));
  const enrolled = await ok(
    await t.app.inject({
      method: 'POST',
      url: '/restapi/agent/enrol',
      payload: { install_key: config.install_key, name: `laptop-${n}`, os_type: 'linux', version: '1.0.0' },
    }),
  );
  await ok(
    await t.app.inject({
      method: 'POST',
      url: '/restapi/agent/heartbeat',
      payload: { device_key: enrolled.device_key, user: `user${n}` },
    }),
  );
  const users = await ok(await root('GET', `/restapi/users/${customerId}/users/`));
  const exception = await ok(
    await root('POST', `/restapi/device_exceptions?user_id=${customerId}`, { name: `Exception ${n}` }),
  );
  const rule = await ok(
    await root('POST', `/restapi/device_exceptions/${exception.id}/rules`, {
      domain: `intranet${n}.example`,
      rule_type: 'ByPass OTG',
    }),
  );
  const group = await ok(await root('POST', `/restapi/users/${customerId}/groups`, { name: `Group ${n}` }));
  return {
    virtualLocationId: virtual.id,
    deviceId: enrolled.device_id,
    internalUserId: users.data[0].id,
    deviceExceptionId: exception.id,
    ruleId: rule.id,
    groupId: group.id,
  };
}

/** The id of the admin with this e-mail. @throws Error when there is none */
async function adminIdOf(t: TestApp, email: string): Promise<number> {
  return (await t.handle.db.selectFrom('admins').select('id').where('email', '=', email).executeTakeFirstOrThrow()).id;
}

/** A dump of every tenant table, to prove a refused call changed nothing. */
export async function snapshot(handle: DatabaseHandle): Promise<string> {
  const tables = [
    'msps',
    'customers',
    'admins',
    'admin_recovery_codes',
    'account_tokens',
    'mail_settings',
    'policies',
    'policy_categories',
    'locations',
    'location_addresses',
    'policy_domains',
    'global_domains',
    'static_routes',
    'cloud_keys',
    'bypasses',
    'default_policies',
    'default_policy_categories',
    'categories',
    'device_settings',
    'devices',
    'device_exceptions',
    'device_exception_rules',
    'user_groups',
    'internal_users',
    'user_group_members',
  ] as const;
  const out: Record<string, unknown[]> = {};
  for (const table of tables) {
    out[table] = await handle.db.selectFrom(table).selectAll().execute();
  }
  // Sort rows so row order from the engine does not matter.
  return JSON.stringify(
    Object.fromEntries(Object.entries(out).map(([k, rows]) => [k, rows.map((r) => JSON.stringify(r)).sort()])),
  );
}

/**
 * A multipart upload of `content` as the file field `field`, what a browser's FormData sends (the CSV
 * imports' `csv`, the logos' `logo`).
 */
export function uploadFile(
  app: FastifyInstance,
  token: string,
  url: string,
  content: string | Buffer,
  file: { field: string; filename: string; contentType: string },
): Promise<LightMyRequestResponse> {
  const boundary = '----cordon-test-boundary';
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.filename}"\r\nContent-Type: ${file.contentType}\r\n\r\n`,
    ),
    Buffer.isBuffer(content) ? content : Buffer.from(content),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return app.inject({
    method: 'POST',
    url,
    headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload,
  });
}
