import type { Generated } from 'kysely';

/**
 * Kysely table types of Cordon's one schema (docs/architecture.md "Layers" "one owner of the schema").
 * Conventions: ids are integers; booleans are INTEGER 0/1 on both dialects; timestamps are
 * ISO-8601 UTC text (`created_at`, `updated_at`) except the query log's `ts`, epoch ms as BIGINT.
 * Every tenant-owned table carries `customer_id` so repositories can scope by tenant in SQL.
 */
export interface Database {
  msps: MspsTable;
  customers: CustomersTable;
  admins: AdminsTable;
  revoked_tokens: RevokedTokensTable;
  login_throttle: LoginThrottleTable;
  categories: CategoriesTable;
  category_domains: CategoryDomainsTable;
  policies: PoliciesTable;
  policy_categories: PolicyCategoriesTable;
  locations: LocationsTable;
  location_addresses: LocationAddressesTable;
  query_log: QueryLogTable;
  audit_log: AuditLogTable;
  policy_domains: PolicyDomainsTable;
  global_domains: GlobalDomainsTable;
  static_routes: StaticRoutesTable;
  cloud_keys: CloudKeysTable;
  bypasses: BypassesTable;
  default_policies: DefaultPoliciesTable;
  default_policy_categories: DefaultPolicyCategoriesTable;
  settings: SettingsTable;
  root_ca: RootCaTable;
  blockpages: BlockpagesTable;
}

export interface MspsTable {
  id: Generated<number>;
  name: string;
  company_name: string;
  license: string;
  timezone: string;
  created_at: string;
  updated_at: string;
}

export interface CustomersTable {
  id: Generated<number>;
  msp_id: number;
  account_name: string;
  uuid_str: string;
  timezone: string;
  created_at: string;
  updated_at: string;
}

/** A console login. `role` is 1 system, 2 sales, 3 MSP (with msp_id), 4 customer (with customer_id). */
export interface AdminsTable {
  id: Generated<number>;
  email: string;
  full_name: string;
  password_hash: string;
  role: number;
  msp_id: number | null;
  customer_id: number | null;
  is_default: number;
  twofa_enabled: number;
  twofa_secret: string | null;
  created_at: string;
  updated_at: string;
  last_login_at: string | null;
}

/** Revoked access-token ids (POST /auth/logout); rows can go once `expires_at` (epoch s) has passed. */
export interface RevokedTokensTable {
  jti: string;
  expires_at: number;
}

/**
 * Login throttling counters shared by all API processes (docs/api.md "Auth"; docs/security.md; migration 0003). `key` is a
 * hashed throttle key; times are epoch ms.
 */
export interface LoginThrottleTable {
  key: string;
  /** Failed logins in the window starting at `window_start`. */
  failures: number;
  window_start: number;
  /** Attempts are refused (429) until this instant; 0 when not throttled. */
  blocked_until: number;
  /** For an account-from-client key: the last successful login, else null. */
  last_success_at: number | null;
}

/** The taxonomy with each category's current level ('L'|'M'|'H'|null), editable by the system admin. */
export interface CategoriesTable {
  id: number;
  name: string;
  level: string | null;
}

/** Domain → category facts from feeds; `source` names the feed (e.g. `ut1`) so re-imports replace it. */
export interface CategoryDomainsTable {
  domain: string;
  category_id: number;
  source: string;
}

export interface PoliciesTable {
  id: Generated<number>;
  customer_id: number;
  name: string;
  description: string;
  level: string;
  is_default: number;
  allow_unclassified: number;
  /** 1: the search engines' hosts answer with their safe-search CNAMEs (migration 0008). */
  safe_search: Generated<number>;
  created_at: string;
  updated_at: string;
}

/**
 * A global default policy (migration 0008): the template a new tenant starts from — an MSP's
 * (`msp_id`), which new customers of the MSP copy, or the system's (`msp_id` null), which new MSPs
 * copy. At most one per owner. `level` is a filtering level; the blocked set is in
 * `default_policy_categories`.
 */
export interface DefaultPoliciesTable {
  id: Generated<number>;
  msp_id: number | null;
  description: string;
  level: string;
  allow_unclassified: number;
  safe_search: number;
  created_at: string;
  updated_at: string;
}

/** The categories a global default policy blocks: one row per blocked category. */
export interface DefaultPolicyCategoriesTable {
  default_policy_id: number;
  category_id: number;
}

/** The categories a policy blocks: one row per blocked category. */
export interface PolicyCategoriesTable {
  policy_id: number;
  customer_id: number;
  category_id: number;
}

export interface LocationsTable {
  id: Generated<number>;
  customer_id: number;
  type: string;
  name: string;
  /** null: inherit the customer's default policy. */
  policy_id: number | null;
  key: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * An address claim of a location (docs/security.md): canonical `network/prefix` text, unique across
 * all tenants, with its family and first/last address as fixed-width hex so SQL finds overlaps.
 * Write rows through `addressClaimColumns` (address-claims.ts).
 */
export interface LocationAddressesTable {
  id: Generated<number>;
  location_id: number;
  customer_id: number;
  ip: string;
  /** 4 or 6 (0 only for a pre-0002 row that did not parse). */
  family: number;
  /** First address, 8 (IPv4) or 32 (IPv6) lower-case hex digits. */
  range_start: string;
  /** Last address, same width as `range_start`. */
  range_end: string;
  created_at: string;
}

/** One resolved query (docs/architecture.md "Statistics"). `ts` is epoch ms. `categories` is a comma-separated id list. */
export interface QueryLogTable {
  id: Generated<number>;
  ts: number;
  customer_id: number;
  location_id: number | null;
  policy_id: number | null;
  client_ip: string;
  qname: string;
  qtype: string;
  protocol: string;
  action: string;
  reason: string;
  categories: string;
  rcode: string;
  answer_source: string;
  latency_us: number;
}

/** Deployment-wide key/value settings (e.g. the JWT signing secret). */
export interface SettingsTable {
  key: string;
  value: string;
}

/**
 * One change, written by core's `mutate()` in the change's own transaction (docs/security.md). The
 * tenant columns have no foreign key: the trail outlives a deleted tenant. `before_json`/`after_json`
 * hold the entity's state as JSON, secrets left out.
 */
export interface AuditLogTable {
  id: Generated<number>;
  /** ISO-8601 UTC. */
  at: string;
  /** null for the operator's `cordon` commands. */
  admin_id: number | null;
  admin_email: string | null;
  role: number | null;
  msp_id: number | null;
  customer_id: number | null;
  /** `<entity>.<verb>`, e.g. `policy.update`. */
  action: string;
  entity: string;
  entity_id: number | null;
  before_json: string | null;
  after_json: string | null;
  client_ip: string | null;
}

/**
 * A static route (conditional forwarding, docs/architecture.md "Decision order" step 2): names at or
 * below `domain` (normalised) asked by the customer's clients are forwarded to `resolver_ip`
 * (canonical) on `resolver_port`. Unique per (customer_id, domain).
 */
export interface StaticRoutesTable {
  id: Generated<number>;
  customer_id: number;
  domain: string;
  resolver_ip: string;
  resolver_port: number;
  description: string;
  created_at: string;
  updated_at: string;
}

/**
 * A customer's cloud key (spec §3 "Cloud key"; docs/architecture.md "Block page"; migration 0007). Entered on the block
 * page it starts a bypass for the client for `expires_after_s` seconds, while active, inside
 * `valid_from`–`valid_to` (ISO-8601 UTC, null = open) and below `max_uses` (null = unlimited).
 */
export interface CloudKeysTable {
  id: Generated<number>;
  customer_id: number;
  /** Letters, digits, spaces, dots and dashes (spec §5); unique per customer. */
  key: string;
  description: string;
  max_uses: number | null;
  times_used: number;
  valid_from: string | null;
  valid_to: string | null;
  /** The bypass a use starts lasts this long, seconds. */
  expires_after_s: number;
  active: number;
  created_at: string;
  updated_at: string;
}

/** An active or past bypass (decision order step 1): client `client_ip` of the customer is unfiltered until `expires_at` (epoch ms). */
export interface BypassesTable {
  id: Generated<number>;
  customer_id: number;
  cloud_key_id: number;
  /** Canonical address (`canonicalIp`). */
  client_ip: string;
  /** Epoch ms. */
  started_at: number;
  /** Epoch ms. */
  expires_at: number;
}

/**
 * One entry of a policy's allow or block list (decision order step 3; migration 0005). `domain` is
 * normalised (`normalizeDomain`); `action` is `allow` or `block`; unique per (policy_id, action, domain).
 */
export interface PolicyDomainsTable {
  id: Generated<number>;
  policy_id: number;
  customer_id: number;
  domain: string;
  action: string;
  include_subdomains: number;
  comment: string;
  log_requests: number;
  created_at: string;
  updated_at: string;
}

/**
 * One entry of a global allow or block list (decision order step 4; migration 0005): an MSP's
 * (`msp_id`) or the system's (`msp_id` null). Unique per (owner, action, domain).
 */
export interface GlobalDomainsTable {
  id: Generated<number>;
  msp_id: number | null;
  domain: string;
  action: string;
  include_subdomains: number;
  comment: string;
  log_requests: number;
  created_at: string;
  updated_at: string;
}

/**
 * The deployment's root CA (migration 0009): one row, id 1. `key_sealed` is the private key sealed
 * with AES-256-GCM under the CA secret kept outside the database (docs/decisions.md "Root CA").
 */
export interface RootCaTable {
  id: number;
  certificate_pem: string;
  key_sealed: string;
  created_at: string;
}

/**
 * Block-page branding (spec §7 `/ui/blockpage`; migration 0010): a customer's (`customer_id`), an
 * MSP's (`msp_id`) or the system's (both null) texts; one row per owner. Empty text: not set.
 */
export interface BlockpagesTable {
  id: Generated<number>;
  customer_id: number | null;
  msp_id: number | null;
  title: string;
  message: string;
  footer: string;
  /** An email address or an http(s) URL, shown as a link; empty: none. */
  support_contact: string;
  created_at: string;
  updated_at: string;
}
