/**
 * Safe-search enforcement (docs/architecture.md "Decision order" "Answers"; docs/architecture.md "Safe search"): when a
 * policy turns it on, each search engine's hosts are answered with a CNAME to the engine's
 * safe-search host, whose addresses are then resolved upstream. The ONE list of those hosts,
 * each set with the engine's own documentation as its source.
 */

/**
 * Google's search domains, from Google's list of supported domains (https://www.google.com/supported_domains).
 * Each is served as `google.<tld>` and `www.google.<tld>`.
 */
// biome-ignore format: a long list of short names, kept dense
const GOOGLE_TLDS = [
  'com', 'ad', 'ae', 'com.af', 'com.ag', 'al', 'am', 'co.ao', 'com.ar', 'as', 'at', 'com.au', 'az', 'ba', 'com.bd',
  'be', 'bf', 'bg', 'com.bh', 'bi', 'bj', 'com.bn', 'com.bo', 'com.br', 'bs', 'bt', 'co.bw', 'by', 'com.bz', 'ca',
  'cd', 'cf', 'cg', 'ch', 'ci', 'co.ck', 'cl', 'cm', 'cn', 'com.co', 'co.cr', 'com.cu', 'cv', 'com.cy', 'cz', 'de',
  'dj', 'dk', 'dm', 'com.do', 'dz', 'com.ec', 'ee', 'com.eg', 'es', 'com.et', 'fi', 'com.fj', 'fm', 'fr', 'ga', 'ge',
  'gg', 'com.gh', 'com.gi', 'gl', 'gm', 'gr', 'com.gt', 'gy', 'com.hk', 'hn', 'hr', 'ht', 'hu', 'co.id', 'ie',
  'co.il', 'im', 'co.in', 'iq', 'is', 'it', 'je', 'com.jm', 'jo', 'co.jp', 'co.ke', 'com.kh', 'ki', 'kg', 'co.kr',
  'com.kw', 'kz', 'la', 'com.lb', 'li', 'lk', 'co.ls', 'lt', 'lu', 'lv', 'com.ly', 'co.ma', 'md', 'me', 'mg', 'mk',
  'ml', 'com.mm', 'mn', 'com.mt', 'mu', 'mv', 'mw', 'com.mx', 'com.my', 'co.mz', 'com.na', 'com.ng', 'com.ni', 'ne',
  'nl', 'no', 'com.np', 'nr', 'nu', 'co.nz', 'com.om', 'com.pa', 'com.pe', 'com.pg', 'com.ph', 'com.pk', 'pl', 'pn',
  'com.pr', 'ps', 'pt', 'com.py', 'com.qa', 'ro', 'ru', 'rw', 'com.sa', 'com.sb', 'sc', 'se', 'com.sg', 'sh', 'si',
  'sk', 'com.sl', 'sn', 'so', 'sm', 'sr', 'st', 'com.sv', 'td', 'tg', 'co.th', 'com.tj', 'tl', 'tm', 'tn', 'to',
  'com.tr', 'tt', 'com.tw', 'co.tz', 'com.ua', 'co.ug', 'co.uk', 'com.uy', 'co.uz', 'com.vc', 'co.ve', 'co.vi',
  'com.vn', 'vu', 'ws', 'rs', 'co.za', 'co.zm', 'co.zw', 'cat',
] as const;

/** One engine: its safe-search host, the hosts mapped to it, and where the mapping is documented. */
export interface SafeSearchEngine {
  readonly name: string;
  /** The CNAME target (lower case, no trailing dot). */
  readonly target: string;
  readonly hosts: readonly string[];
  readonly source: string;
}

/** The engines, in one place. Hosts are lower case without a trailing dot; each maps to its engine's target. */
export const SAFE_SEARCH_ENGINES: readonly SafeSearchEngine[] = Object.freeze([
  {
    name: 'Google',
    target: 'forcesafesearch.google.com',
    hosts: GOOGLE_TLDS.flatMap((tld) => [`google.${tld}`, `www.google.${tld}`]),
    source: 'Google: "Lock SafeSearch for devices & networks you manage" (support.google.com/websearch/answer/186669)',
  },
  {
    name: 'Bing',
    target: 'strict.bing.com',
    hosts: ['bing.com', 'www.bing.com'],
    source: 'Microsoft: "Block adult content with SafeSearch" for networks (map www.bing.com to strict.bing.com)',
  },
  {
    name: 'YouTube',
    target: 'restrict.youtube.com',
    hosts: [
      'youtube.com',
      'www.youtube.com',
      'm.youtube.com',
      'youtubei.googleapis.com',
      'youtube.googleapis.com',
      'www.youtube-nocookie.com',
    ],
    source: 'Google Workspace: "Set up YouTube content restrictions", DNS method (support.google.com/a/answer/6214622)',
  },
  {
    name: 'DuckDuckGo',
    target: 'safe.duckduckgo.com',
    hosts: ['duckduckgo.com', 'www.duckduckgo.com', 'start.duckduckgo.com'],
    source: 'DuckDuckGo help: "Can I enforce Safe Search on my network?" (CNAME to safe.duckduckgo.com)',
  },
]);

const TARGETS: ReadonlyMap<string, string> = new Map(
  SAFE_SEARCH_ENGINES.flatMap((e) => e.hosts.map((h) => [h, e.target] as const)),
);

/**
 * The safe-search host `qname` must be answered with, or undefined when it is no search engine's
 * host. `qname` is normalised (lower case, no trailing dot). One map lookup; exact names only (a
 * subdomain such as `images.google.com` is not one of the listed hosts).
 */
export function safeSearchTarget(qname: string): string | undefined {
  return TARGETS.get(qname);
}
