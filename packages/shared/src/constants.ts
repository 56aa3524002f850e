/** Business constants and limits (spec-notes §9), in the units named. */
export const Constants = {
  /** Error alert and toast duration, ms. */
  toastDurationMs: 5000,
  /** Default list page size. */
  defaultPageSize: 10,
  /** Default page size of the groups list. */
  groupsPageSize: 10_000,
  /** Default limit of history queries. */
  historyLimit: 1000,
  /** Default sort key and direction. */
  defaultSortKey: 'name',
  defaultSortDir: 'asc',
  /** OAuth client id of the console's login. */
  loginClientId: '2',
  /** PKCE verifier length, hex characters. */
  pkceVerifierLength: 128,
  /** OAuth state length, characters. */
  oauthStateLength: 40,
  /** Chart colours. */
  allowedColour: '#4BA7EE',
  blockedColour: '#DE3617',
  /** Dashboard defaults. */
  dashboardTrafficDefault: 'today',
  dashboardHistoryDays: 5,
  /** Long domains are shortened at this many characters when they have more than two labels. */
  longDomainChars: 25,
  /** Upload and import size limit, bytes (1 MB). */
  maxUploadBytes: 1024 * 1024,
  /** Free-text length bounds, characters. */
  textMin: 5,
  textMax: 200,
  /** Archived report retention, months. */
  archivedReportMonths: 6,
  /** Script chunk timeout, ms. */
  chunkTimeoutMs: 120_000,
  /** Access token lifetime, seconds (docs/api.md "Auth"). */
  accessTokenTtlSeconds: 12 * 3600,
  /** Minimum length of a new password (docs/api.md "Auth"). */
  passwordMinLength: 8,
  /** TTL of a blocked answer, seconds (docs/architecture.md "Decision order"). */
  blockedAnswerTtl: 60,
  /** Most sub-requests in one POST /batch (docs/api.md). */
  batchMaxRequests: 100,
  /**
   * Most bytes of sub-request answers (their JSON bodies) in one POST /batch answer, 1 MiB (docs/api.md
   * "Batch"; issue 30): items past it answer 413 `ERR_BATCH_TOO_LARGE`.
   */
  batchMaxResponseBytes: 1024 * 1024,
} as const;

/** Offset of a page: size × page − size (spec-notes §9). Pages count from 1. */
export function pageOffset(size: number, page: number): number {
  return size * page - size;
}

/** Count formatter: above 999, one decimal and a k (spec-notes §9): 1234 → "1.2k". */
export function formatCount(value: number): string {
  if (value > 999) return `${(value / 1000).toFixed(1)}k`;
  return String(value);
}

/** Shortens a domain of 25+ characters and more than two labels, keeping its last two labels (spec-notes §9). */
export function shortenDomain(domain: string): string {
  const labels = domain.split('.');
  if (domain.length < Constants.longDomainChars || labels.length <= 2) return domain;
  return `…${labels.slice(-2).join('.')}`;
}

/** The account short name: the first letters of the first two words (spec-notes §9). "Acme School" → "AS". */
/**
 * An MSP's licence as a customer limit (issue 11 "licence counts enforced"): a whole number
 * (`'25'`, `' 25 '`), else null — no limit ('' or a plan name).
 */
export function parseLicenceLimit(license: string): number | null {
  const text = license.trim();
  return /^\d{1,9}$/.test(text) ? Number(text) : null;
}

export function accountShortName(name: string): string {
  return name
    .trim()
    .split(/\s+/)
    .slice(0, 2)
    .map((w) => w.charAt(0).toUpperCase())
    .join('');
}

/**
 * The data plane's default UDP limits, queries per second (docs/operations.md "Response-rate
 * limiting"): per claimed location (`--location-rate-limit`) and per client /24 of unclaimed sources
 * and amplifying answers (`--rrl-rate`). Here, beside no schema, so the resolver's bundle takes no zod.
 */
export const DNS_RATE_DEFAULTS = { locationQps: 5000, rrlQps: 200 } as const;
