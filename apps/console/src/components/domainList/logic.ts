import { type DomainAction, type DomainListKind, ErrorTexts } from '@cordon/shared';
import { ApiCallError } from '../../api/client.ts';
import { saveFile } from '../saveFile.ts';

/**
 * Whose lists a domain-list view shows (spec-notes §7 Domains): a policy's (with its customer as
 * `user_id`, which the API checks against the policy), or a global list, an MSP's (`msp_id`) or the
 * system's (no owner: system admins only).
 */
export type DomainListOwner =
  | { readonly kind: 'policy'; readonly policyId: number; readonly userId?: number }
  | { readonly kind: 'global'; readonly mspId?: number };

/** The tabs of a list view, in order (spec-notes §2 "Allowed & Blocked Domains"): each is a list kind of the API. */
export const DOMAIN_TABS: readonly { readonly kind: DomainListKind; readonly labelKey: string }[] = [
  { kind: 'allow', labelKey: 'domainList.allowed' },
  { kind: 'block', labelKey: 'domainList.blocked' },
  { kind: 'all', labelKey: 'domainList.all' },
];

/** True when `value` names a tab (`allow`, `block`, `all`), e.g. from the URL's `?list=`. */
export function isDomainListKind(value: unknown): value is DomainListKind {
  return value === 'allow' || value === 'block' || value === 'all';
}

/** The list a new entry or an import goes to from a tab: the tab's own list, `block` from "All". */
export function targetList(kind: DomainListKind): DomainAction {
  return kind === 'all' ? 'block' : kind;
}

/**
 * The file name of a download from its `Content-Disposition` header (RFC 6266 §4.1:
 * `filename*=UTF-8''…` preferred over `filename="…"`), without any directory part; null when the
 * header is absent or names no file.
 */
export function fileNameFromDisposition(header: string | null): string | null {
  if (!header) return null;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  let name: string | null = null;
  if (extended?.[1]) {
    try {
      name = decodeURIComponent(extended[1].trim());
    } catch {
      name = null;
    }
  }
  if (name === null) {
    const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/.exec(header);
    name = plain ? (plain[1] ?? plain[2] ?? '').replace(/\\(.)/g, '$1').trim() : null;
  }
  const base = name?.split(/[\\/]/).pop() ?? '';
  return base === '' ? null : base;
}

/**
 * The limit named by a refusal of a full list (422 `ERR_LIST_FULL`: the operator's
 * `--max-list-entries`, docs/operations.md "List sizes"), or null for any other error. The limit is
 * read from the server's English text ("…at most 100,000 entries."); 0 when the text names none.
 */
export function listFullLimit(error: unknown): number | null {
  if (!(error instanceof ApiCallError) || error.code !== 'ERR_LIST_FULL') return null;
  const named = /at most ([\d,]+)/.exec(error.message);
  return named ? Number(named[1]!.replace(/,/g, '')) : 0;
}

/**
 * What a failed CSV import tells the user: the server's message for the file (`fields.csv`, e.g.
 * "Line 3: Please specify domain or partial domain only, URLs are not permitted."; docs/api.md
 * "Domain lists"), else its error text, else the spec-notes §8 upload failure text.
 */
export function importErrorText(error: unknown): string {
  if (error instanceof ApiCallError) {
    const field = error.fields?.['csv'];
    if (field) return field;
    if (error.kind === 'http' && error.message) return error.message;
  }
  return ErrorTexts.uploadFailed;
}

/** The detail page of an entry: the customer's (`?policy=`, the API needs the policy) or a global one. */
export function entryPath(owner: DomainListOwner, entryId: number, area: 'customer' | 'msp' | 'system'): string {
  if (owner.kind === 'policy') return `/customer/content_filtering/domains/${entryId}?policy=${owner.policyId}`;
  return `/${area}/global_settings/global_domains/${entryId}`;
}

/** Saves `text` as a file named `fileName`, CSV unless `type` says otherwise ({@link saveFile}). */
export function saveTextFile(text: string, fileName: string, type = 'text/csv', doc: Document = document): void {
  saveFile(text, fileName, type, doc);
}
