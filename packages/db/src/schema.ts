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
  api_tokens: ApiTokensTable;
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
  category_feeds: CategoryFeedsTable;
  device_settings: DeviceSettingsTable;
  devices: DevicesTable;
  device_contact_hours: DeviceContactHoursTable;
  device_exceptions: DeviceExceptionsTable;
  device_exception_rules: DeviceExceptionRulesTable;
  user_groups: UserGroupsTable;
  internal_users: InternalUsersTable;
  device_users: DeviceUsersTable;
  user_group_members: UserGroupMembersTable;
  mail_settings: MailSettingsTable;
  admin_recovery_codes: AdminRecoveryCodesTable;
  account_tokens: AccountTokensTable;
  stats_hourly: StatsHourlyTable;
  stats_hourly_top: StatsHourlyTopTable;
  worker_jobs: WorkerJobsTable;
  scheduled_reports: ScheduledReportsTable;
  report_archive: ReportArchiveTable;
  stats_daily_top: StatsDailyTopTable;
  stats_daily_done: StatsDailyDoneTable;
  stats_daily_msp_top: StatsDailyMspTopTable;
  stats_hourly_msp_top: StatsHourlyMspTopTable;
  stats_msp_rank: StatsMspRankTable;
  stats_msp_summary: StatsMspSummaryTable;
  stats_msp_summary_done: StatsMspSummaryDoneTable;
  query_log_fold: QueryLogFoldTable;
  ui_interfaces: UiInterfacesTable;
  ui_support: UiSupportTable;
  recategorize_requests: RecategorizeRequestsTable;
  category_overrides: CategoryOverridesTable;
  policy_notifications: PolicyNotificationsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_hits: WebhookHitsTable;
  webhook_watermarks: WebhookWatermarksTable;
  msp_log_streams: MspLogStreamsTable;
}

export interface MspsTable {
  id: Generated<number>;
  name: string;
  company_name: string;
  license: string;
  timezone: string;
  created_at: string;
  updated_at: string;
  /** 1 when the MSP makes its admins enrol in 2FA before they can log in (migration 0012). */
  enforce_twofa: Generated<number>;
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
  /** Profile language, '' = the console's default (migration 0012). */
  lang: Generated<string>;
  /** Profile IANA time zone, '' = "Use System Default" (spec-notes §9). */
  timezone: Generated<string>;
  /** Carried in each token's `jti`; raised to refuse every older token (logout everywhere, password or role change). */
  token_generation: Generated<number>;
  /** A TOTP secret offered by the first enrolment call, not yet confirmed by a code. */
  twofa_pending_secret: Generated<string | null>;
  /** The TOTP time step (RFC 6238 §4) of the last accepted code; a code is accepted once only. */
  twofa_last_step: Generated<number>;
}

/** One of an admin's ten 2FA recovery codes (docs/security.md "Accounts"): hashed, used in `position` order. */
export interface AdminRecoveryCodesTable {
  id: Generated<number>;
  admin_id: number;
  /** 1–10. */
  position: number;
  /** SHA-256 hex of the normalised code. */
  code_hash: string;
  used_at: string | null;
}

/** An invitation or password-reset link (docs/security.md "Accounts"): hashed, single use, expiring. */
export interface AccountTokensTable {
  id: Generated<number>;
  /** SHA-256 hex of the token sent in the link. */
  token_hash: string;
  admin_id: number;
  purpose: 'invite' | 'reset';
  /** Epoch ms. */
  expires_at: number;
  used_at: string | null;
  created_at: string;
}

/**
 * The SMTP settings of the system (`owner` 'system') or of one MSP (`owner` 'msp:<id>'); an MSP
 * without its own row uses the system's (spec-notes §3 "Email settings"; migration 0011).
 */
export interface MailSettingsTable {
  id: Generated<number>;
  owner: string;
  msp_id: number | null;
  server: string;
  port: number;
  security: 'none' | 'starttls' | 'tls';
  username: string;
  /** Used only to send; never answered. */
  password: string;
  /** The sender's display name. */
  sender: string;
  from_email: string;
  notification_period: string;
  /** System row only: the console address mailed links point to ('' = not set). */
  console_url: string;
  updated_at: string;
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
  /** The secret key: a `dynamicip` location's update key, a `roaming`/`virtual` location's DoH key (migration 0015). */
  key: string | null;
  /** The name a `dynamicdns` location follows (migration 0015); null for other types. */
  hostname: Generated<string | null>;
  /** When a `dynamicip`/`dynamicdns` location's addresses last changed, ISO-8601 UTC (migration 0015). */
  addresses_updated_at: Generated<string | null>;
  /** The last re-resolution's failure of a `dynamicdns` location; empty when it succeeded. */
  resolve_error: Generated<string>;
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
  /** The device identified by its key (DoH path, EDNS(0) option 65073); null for a location (migration 0029). */
  device_id: Generated<number | null>;
  /** The internal user the agent reported (EDNS(0) option 65074) when known; null otherwise. */
  user_id: Generated<number | null>;
  /** That user's name as logged (kept after the user is deleted); empty when none. */
  user_name: Generated<string>;
  /** That user's effective group; null when none. */
  group_id: Generated<number | null>;
  /**
   * The name of the answer's alias chain (CNAME/DNAME owner or target, HTTPS/SVCB target) whose
   * decision blocked the query, lower case without the trailing dot; empty when the decision was
   * made on the qname (migration 0036).
   */
  matched_name: Generated<string>;
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
  /** The API token the change was made with (migration 0038); null for a login session or the operator. */
  api_token_id?: number | null;
  api_token_name?: string | null;
}

/**
 * A named API token of an admin (migration 0038; docs/api.md "API tokens"): found by its public
 * `prefix`, checked by `secret_hash` (SHA-256 hex of the whole secret, compared in constant time).
 * `role` is the admin's role at creation; times are ISO-8601 UTC, `expires_at` null never expires.
 */
export interface ApiTokensTable {
  id: Generated<number>;
  admin_id: number;
  name: string;
  prefix: string;
  secret_hash: string;
  /** `read` or `read-write`. */
  access: string;
  role: number;
  expires_at: string | null;
  created_at: string;
  last_used_at: string | null;
  last_used_ip: string | null;
  revoked_at: string | null;
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
 * A customer's cloud key (spec-notes §3 "Cloud key"; docs/architecture.md "Block page"; migration 0007). Entered on the block
 * page it starts a bypass for the client for `expires_after_s` seconds, while active, inside
 * `valid_from`–`valid_to` (ISO-8601 UTC, null = open) and below `max_uses` (null = unlimited).
 */
export interface CloudKeysTable {
  id: Generated<number>;
  customer_id: number;
  /** Letters, digits, spaces, dots and dashes (spec-notes §5); unique per customer. */
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
 * Block-page branding (spec-notes §7 `/ui/blockpage`; migration 0010): a customer's (`customer_id`), an
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
  /** The logo's bytes (migration 0026); null: none at this level. */
  logo: Uint8Array | null;
  /** The logo's sniffed media type (`image/png`, …); null with `logo`. */
  logo_type: string | null;
  /** Hex SHA-256 of `logo`, which names it in the block page's logo URL; null with `logo`. */
  logo_sha256: string | null;
  created_at: string;
  updated_at: string;
}

/** Hourly query counts per customer and location (migration 0019; docs/architecture.md "Statistics"). */
export interface StatsHourlyTable {
  customer_id: number;
  /** 0 when the query had no location. */
  location_id: number;
  /** Epoch ms of the UTC hour's start. */
  hour: number;
  requests: number;
  /** Every action but `blocked` and `bypassed`. */
  allowed: number;
  blocked: number;
  bypassed: number;
}

/** Hourly counts per dimension key and action (migration 0019): `category`, `domain`, `sourceip`, `policy`. */
export interface StatsHourlyTopTable {
  customer_id: number;
  location_id: number;
  hour: number;
  dim: string;
  /** `allowed`, `blocked` or `bypassed`. */
  action: string;
  key: string;
  count: number;
}

/** The worker's job ledger (migration 0020): epoch ms of the last start and finish, and the last error. */
export interface WorkerJobsTable {
  name: string;
  last_started_at: number | null;
  last_finished_at: number | null;
  last_error: string | null;
  runs: Generated<number>;
}

/**
 * A customer's device settings (spec-notes §7 "Devices"; migration 0016): the install key agents enrol
 * with, and the customer-wide device configuration and advanced JSON configuration. At most one row
 * per customer, created on first use.
 */
export interface DeviceSettingsTable {
  customer_id: number;
  install_key: string;
  install_key_created_at: string;
  /** `default` | `group` | `policy` (spec-notes §4 "Policy inheritance choices"). */
  policy_mode: string;
  policy_id: number | null;
  device_exception_id: number | null;
  /** JSON text; null: none. */
  advanced_config: string | null;
  updated_at: string;
}

/**
 * An enrolled device (spec-notes §3 "Device"; migration 0016). `key` is its secret (DoH path, EDNS option
 * 65073). `policy_mode` is `default` | `group` | `policy` (with `policy_id`). While
 * `advanced_config` (JSON text) is set, the details are locked (spec-notes §4).
 */
/**
 * How many of a customer's devices were last heard from in each hour (migration 0041; docs/decisions.md
 * "Device figures from contact hours"): kept by triggers on `devices`, never written by the code.
 */
export interface DeviceContactHoursTable {
  customer_id: number;
  /** `devices.last_contact_at`'s first 13 characters (`YYYY-MM-DDTHH`, UTC); '' for never. */
  hour: string;
  devices: number;
}

export interface DevicesTable {
  id: Generated<number>;
  customer_id: number;
  key: string;
  name: string;
  dns_name: Generated<string>;
  tag: Generated<string>;
  version: Generated<string>;
  os_type: Generated<string>;
  /** JSON object text, e.g. `{"os":{"type":"linux"}}`. */
  extra_info: Generated<string>;
  /** ISO-8601 UTC; null until the first heartbeat. */
  last_contact_at: string | null;
  /** Canonical address the last heartbeat came from; empty when unknown. */
  last_ip: Generated<string>;
  location_id: number | null;
  policy_mode: Generated<string>;
  policy_id: number | null;
  device_exception_id: number | null;
  advanced_config: string | null;
  /** Heartbeat user reports refused (migration 0037): over the per-device cap, or needing an admin's binding. */
  user_reports_refused: Generated<number>;
  created_at: string;
  updated_at: string;
}

/**
 * A user a device may assert (migration 0037; docs/security.md "Identity claims"): bound by an admin
 * (`source` `admin`) or reported by the device's agent at heartbeat (`agent`). Primary key (device_id, user_id).
 */
export interface DeviceUsersTable {
  device_id: number;
  user_id: number;
  customer_id: number;
  source: 'admin' | 'agent';
  /** ISO-8601 UTC. */
  created_at: string;
}

/** A device exception (spec-notes §3; migration 0016): a named set of rules devices can be given. Unique per (customer_id, name). */
export interface DeviceExceptionsTable {
  id: Generated<number>;
  customer_id: number;
  name: string;
  description: string;
  created_at: string;
  updated_at: string;
}

/**
 * An exception rule (spec-notes §3 "Exception rule"; migration 0016): names at or below `domain` (and/or
 * queries from source `ip`) go to the system resolver (`ByPass OTG`) or to `resolver`
 * (`Use Specific Resolver`), on the device, before any filtering.
 */
export interface DeviceExceptionRulesTable {
  id: Generated<number>;
  device_exception_id: number;
  customer_id: number;
  /** Normalised domain; empty: any. */
  domain: string;
  /** Source IP or CIDR (canonical); empty: any. */
  ip: string;
  /** Resolver address (`ip` or `ip:port`) for `Use Specific Resolver`; empty otherwise. */
  resolver: string;
  /** `ByPass OTG` | `Use Specific Resolver`. */
  rule_type: string;
  description: string;
  created_at: string;
  updated_at: string;
}

/** A group (spec-notes §3 "Group"; migration 0017). `weight` 1 is the highest rank (spec-notes §4). Unique per (customer_id, name). */
export interface UserGroupsTable {
  id: Generated<number>;
  customer_id: number;
  name: string;
  description: string;
  policy_id: number | null;
  disabled: number;
  weight: number;
  created_at: string;
  updated_at: string;
}

/** An internal user (spec-notes §3 "Internal user"; migration 0017), as an agent reports it. Unique per (customer_id, name). */
export interface InternalUsersTable {
  id: Generated<number>;
  customer_id: number;
  name: string;
  description: string;
  policy_id: number | null;
  /** ISO-8601 UTC. */
  last_login_at: string | null;
  last_login_ip: string;
  last_device_id: number | null;
  created_at: string;
  updated_at: string;
}

/** Membership of an internal user in a group (migration 0017). */
export interface UserGroupMembersTable {
  user_id: number;
  group_id: number;
  customer_id: number;
}

/**
 * Interface branding of a level (spec-notes §7 `/ui/interface`; migration 0023): an MSP's (`msp_id`) or the
 * system's (`msp_id` null). '' title: none at this level.
 */
export interface UiInterfacesTable {
  id: Generated<number>;
  msp_id: number | null;
  title: string;
  /** JSON array of IP addresses or host names. */
  nameservers: string;
  /** The logo's bytes; null: none at this level. */
  logo: Uint8Array | null;
  /** The logo's sniffed media type; null with `logo`. */
  logo_type: string | null;
  /** Hex SHA-256 of `logo`; null with `logo`. */
  logo_sha256: string | null;
  created_at: string;
  updated_at: string;
}

/** Support contacts of a level (spec-notes §7 `/ui/support`; migration 0023); '' = not set. */
export interface UiSupportTable {
  id: Generated<number>;
  msp_id: number | null;
  email: string;
  link: string;
  support_desk_url: string;
  created_at: string;
  updated_at: string;
}

/**
 * A category feed source (migration 0027; docs/operations.md "Category feeds"). Its names are the
 * `category_domains` rows of source `feed:<id>`.
 */
export interface CategoryFeedsTable {
  id: Generated<number>;
  name: string;
  /** `domains`, `hosts` or `adblock` (`@cordon/feeds` FEED_FORMATS). */
  format: string;
  /** The category every name of the feed gets. */
  category_id: number;
  /** An `https:` URL fetched by the worker; null: the feed is uploaded by hand. */
  url: string | null;
  /** Hours between fetches; 0: only when run by hand. */
  interval_hours: number;
  enabled: number;
  last_run_at: string | null;
  /** `ok` or `error`; null: never run. */
  last_status: string | null;
  last_error: string | null;
  /** Names held after the last successful run. */
  last_rows: number | null;
  /** Lines of the last run that were not stored (addresses, invalid, unsupported). */
  last_skipped: number | null;
  created_at: string;
  updated_at: string;
}

/** A customer's scheduled report (migration 0021; spec-notes §3 "Scheduled report"). */
export interface ScheduledReportsTable {
  id: Generated<number>;
  customer_id: number;
  name: string;
  /** A report code `r_*`. */
  type: string;
  /** `daily`, `weekly` or `monthly`. */
  frequency: string;
  /** JSON array of e-mail addresses. */
  recipients: string;
  /** JSON array of category ids. */
  categories: string;
  /** The key of the last period handled: `YYYY-MM-DD` (daily, weekly: its Monday) or `YYYY-MM`. */
  last_period: string | null;
  sent_at: string | null;
  /** `sent` or `report not sent`. */
  status: string | null;
  reason: string | null;
  created_at: string;
  updated_at: string;
}

/** A PDF report sent or run (migration 0021), kept 6 months (spec-notes §9). */
export interface ReportArchiveTable {
  id: Generated<number>;
  customer_id: number;
  scheduled_report_id: number | null;
  name: string;
  type: string;
  period_start: string;
  period_end: string;
  /** JSON array of e-mail addresses. */
  recipients: string;
  status: string;
  reason: string | null;
  pdf: Uint8Array;
  created_at: string;
}

/** A request to recategorise a domain (spec-notes §7 `POST /tools/recategorize`; migration 0024), reviewed by the system admin. */
export interface RecategorizeRequestsTable {
  id: Generated<number>;
  domain: string;
  /** The category asked for (0–54). */
  category_id: number;
  comment: string;
  /** `pending`, `approved` or `rejected`. */
  status: Generated<string>;
  /** The admin who asked; null once that admin is deleted. */
  requested_by: number | null;
  /** That admin's e-mail at the time. */
  requested_email: string;
  /** The asking tenant: an MSP (MSP admin), a customer and its MSP (customer admin), none (system). */
  msp_id: number | null;
  customer_id: number | null;
  reviewed_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A domain's category set by an approved request (migration 0024): its `category_domains` rows have source `override`. */
export interface CategoryOverridesTable {
  domain: string;
  category_id: number;
  request_id: number | null;
  created_at: string;
}

/** `stats_hourly_top` summed per UTC day, without the location (migration 0022). */
export interface StatsDailyTopTable {
  customer_id: number;
  /** Epoch ms of the UTC day's start. */
  day: number;
  dim: string;
  action: string;
  key: string;
  count: number;
}

/** The UTC days compacted into `stats_daily_top` (migration 0022). */
export interface StatsDailyDoneTable {
  day: number;
  done_at: number;
}

/** `stats_hourly_top` summed per MSP and UTC day (migration 0022): MSP and system dashboards. */
export interface StatsDailyMspTopTable {
  msp_id: number;
  day: number;
  dim: string;
  action: string;
  key: string;
  count: number;
}

/**
 * `stats_hourly_top` summed per MSP (the customer's MSP when written) and UTC hour (migration 0033):
 * the hours of MSP and system dashboards. `count` in queries.
 */
export interface StatsHourlyMspTopTable {
  msp_id: number;
  hour: number;
  dim: string;
  action: string;
  key: string;
  count: number;
}

/**
 * The top keys of an MSP's period (migration 0034): `hours` 24 (a compacted UTC day starting at
 * `start`, epoch ms) or 1 (an ended UTC hour); `grp` `allowed` (allowed + bypassed) or `blocked`;
 * at most 200 keys per (MSP, period, dim, grp), exact counts. `count` in queries.
 */
export interface StatsMspRankTable {
  msp_id: number;
  hours: number;
  start: number;
  dim: string;
  grp: string;
  key: string;
  count: number;
}

/**
 * An MSP's period summary (migration 0034): `sketch` the HyperLogLog registers of its `domain` keys,
 * `rest_max` a JSON object `"<dim>:<grp>"` → the largest count of a key not in `stats_msp_rank`.
 */
export interface StatsMspSummaryTable {
  msp_id: number;
  hours: number;
  start: number;
  sketch: Uint8Array;
  rest_max: string;
}

/** The periods summarized for every MSP (migration 0034). */
export interface StatsMspSummaryDoneTable {
  hours: number;
  start: number;
  done_at: number;
}

/**
 * The roll-ups' watermark (migration 0035): one row, `id` 1; `last_id` the highest `query_log.id`
 * folded into the roll-up tables, `folded_at` (epoch ms) when the last fold that moved it committed.
 */
export interface QueryLogFoldTable {
  id: number;
  last_id: number;
  folded_at: number;
}

/**
 * A policy's category notifications (migration 0028; spec-notes §3 "Notification settings"):
 * `categories` and `emails` are JSON arrays, `interval` `hourly`/`daily`/`weekly`, `period` the
 * window counted (`hour`/`day`/`week`); `last_run_at` (ISO) is the digest's claim.
 */
export interface PolicyNotificationsTable {
  policy_id: number;
  customer_id: number;
  categories: string;
  interval: string;
  period: string;
  emails: string;
  last_run_at: string | null;
  last_sent_at: string | null;
  last_status: string | null;
  last_reason: string | null;
  created_at: string;
  updated_at: string;
}

/** A webhook endpoint of an MSP, or of a customer (`customer_id` set; migration 0039, docs/api.md "Webhooks"). */
export interface WebhookEndpointsTable {
  id: Generated<number>;
  msp_id: number;
  customer_id: number | null;
  url: string;
  description: Generated<string>;
  /** The signing secret (`whsec_…`), sealed with the deployment SecretBox. */
  secret: string;
  /** JSON array of event types. */
  events: string;
  enabled: Generated<number>;
  disabled_at: string | null;
  disabled_reason: string | null;
  consecutive_failures: Generated<number>;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

/** One event for one endpoint and its delivery state (migration 0039). */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  endpoint_id: number;
  event_id: string;
  type: string;
  payload: string;
  /** `pending`, `delivered` or `failed`. */
  status: string;
  attempts: Generated<number>;
  /** Epoch ms. */
  next_attempt_at: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

/** The last security-hit event per customer, domain and client (epoch ms; migration 0039). */
export interface WebhookHitsTable {
  customer_id: number;
  domain: string;
  client_ip: string;
  last_at: number;
}

/** How far a webhook event producer has read a log (its last id; migration 0039). */
export interface WebhookWatermarksTable {
  name: string;
  last_id: number;
}

/**
 * A query-log stream destination of an MSP (migration 0040; docs/operations.md "Query-log streaming"
 * "Per-MSP destinations"): its customers' queries only.
 */
export interface MspLogStreamsTable {
  id: Generated<number>;
  msp_id: number;
  name: string;
  /** `syslog` (RFC 5424 over TCP/TLS) or `ndjson` (batches over HTTPS POST). */
  format: string;
  /** syslog: `tcp://host:port` or `tls://host:port`; ndjson: the URL. */
  address: string;
  /** PEM CA certificates trusted for TLS instead of Node's bundle. */
  ca_pem: string | null;
  /** The NDJSON `Authorization` header value, sealed with the deployment SecretBox. */
  authorization: string | null;
  enabled: Generated<number>;
  created_at: string;
  /** ISO; the writer threads' change stamp. */
  updated_at: string;
  last_delivered_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
}
