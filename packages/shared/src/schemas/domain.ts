import { z } from 'zod';
import { Constants } from '../constants.ts';
import { ddmmyyyy } from '../csv.ts';
import { Messages } from '../messages.ts';
import { isDomainName, looksLikeUrl, normalizeDomain } from '../net.ts';
import { controlCharactersMessage, idSchema, listQuerySchema } from './common.ts';

/** The two lists of an owner (spec-notes §3 "Domain list entry" `object`). */
export const DOMAIN_ACTIONS = ['allow', 'block'] as const;
export type DomainAction = (typeof DOMAIN_ACTIONS)[number];

/** A list in a path: `allow`, `block`, or `all` (both; spec-notes §7 "Domains"). */
export const DOMAIN_LIST_KINDS = ['allow', 'block', 'all'] as const;
export type DomainListKind = (typeof DOMAIN_LIST_KINDS)[number];

/**
 * Checks one list-entry name as a person typed it (spec-notes §5 "Domain": a domain or partial domain,
 * never a URL) and normalises it as the resolver matches names (`normalizeDomain`: lower case, no
 * leading or trailing dot, IDNA A-labels), so `Bücher.Example.` is stored as `xn--bcher-kva.example`.
 * A single label (`example`, `com`) is a partial domain and allowed.
 * @returns the normalised name, or null when the text is not a domain (the caller reports {@link Messages.domainOnly})
 */
export function parseListDomain(text: string): string | null {
  const raw = text.trim();
  if (raw === '' || looksLikeUrl(raw)) return null;
  const name = normalizeDomain(raw);
  return isDomainName(name, { allowSingleLabel: true }) ? name : null;
}

/** A list entry's domain in a body: {@link parseListDomain}, refused with the spec-notes §5 message. */
export const listDomainSchema = z
  .string({ error: Messages.required })
  .trim()
  .min(1, { error: Messages.required })
  .transform((v, ctx) => {
    const name = parseListDomain(v);
    if (name === null) {
      ctx.addIssue({ code: 'custom', message: Messages.domainOnly });
      return z.NEVER;
    }
    return name;
  });

/** A free-text comment of an entry: at most 200 characters ('' allowed), no line breaks (CSV export). */
const commentSchema = z
  .string()
  .trim()
  .max(Constants.textMax, { error: Messages.max200 })
  .refine((v) => !/\p{Cc}/u.test(v), { error: controlCharactersMessage });

/**
 * A domain list entry on the wire (spec-notes §3 "Domain list entry": id, `object` allow or block,
 * policyid, policyname, include subdomains), with the project's comment and log-requests flag.
 * Policy entries carry `policyid`, `policyname` and `user_id` (the customer); global entries carry
 * `msp_id` (null for the system's lists) and null policy fields.
 */
export const domainEntrySchema = z.object({
  id: z.number().int(),
  domain: z.string(),
  object: z.enum(DOMAIN_ACTIONS),
  include_subdomains: z.boolean(),
  comment: z.string(),
  log_requests: z.boolean(),
  policyid: z.number().int().nullable(),
  policyname: z.string().nullable(),
  user_id: z.number().int().nullable(),
  msp_id: z.number().int().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type DomainEntry = z.infer<typeof domainEntrySchema>;

/** Body of a new entry (`POST …/domains/{allow|block}`): include subdomains and log requests default on. */
export const domainEntryCreateSchema = z.object({
  domain: listDomainSchema,
  include_subdomains: z.boolean().default(true),
  comment: commentSchema.default(''),
  log_requests: z.boolean().default(true),
});
export type DomainEntryCreate = z.infer<typeof domainEntryCreateSchema>;

/** Body of an entry update (`PUT /policies/{id}/domains/{action}/{entryId}`, global: POST): fields left out keep their value. */
export const domainEntryUpdateSchema = z.object({
  domain: listDomainSchema.optional(),
  include_subdomains: z.boolean().optional(),
  comment: commentSchema.optional(),
  log_requests: z.boolean().optional(),
});
export type DomainEntryUpdate = z.infer<typeof domainEntryUpdateSchema>;

/** The tenant a policy list call names besides the policy (spec-notes §7 "carrying user_id or msp_id"); both optional, both checked. */
const policyOwnerQuery = z.object({ user_id: idSchema.optional(), msp_id: idSchema.optional() });
/** The owner of a global list: an MSP (`msp_id`), or the system's lists when absent (system admins only). */
const globalOwnerQuery = z.object({ msp_id: idSchema.optional() });

/** Query of a policy list read: the list query (sortkey `name`/`domain`, `object`, `created_at`, `updated_at`, `id`; filter on the domain) and the owner. */
export const policyDomainListQuerySchema = listQuerySchema.extend(policyOwnerQuery.shape);
/** Query of a global list read. */
export const globalDomainListQuerySchema = listQuerySchema.extend(globalOwnerQuery.shape);
/** Query of a policy list's single-entry calls and exports. */
export const policyDomainOwnerQuerySchema = policyOwnerQuery;
/** Query of a global list's single-entry calls and exports. */
export const globalDomainOwnerQuerySchema = globalOwnerQuery;

const overwriteSchema = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1')
  .default(false);
/** Query of a policy list CSV import: `overwrite=true` replaces the list. */
export const policyDomainImportQuerySchema = policyOwnerQuery.extend({ overwrite: overwriteSchema });
/** Query of a global list CSV import. */
export const globalDomainImportQuerySchema = globalOwnerQuery.extend({ overwrite: overwriteSchema });

/** Answer of a CSV import: entries added, lines naming an entry already listed, entries removed by `overwrite`. */
export const domainImportResultSchema = z.object({
  imported: z.number().int(),
  skipped: z.number().int(),
  removed: z.number().int(),
});
export type DomainImportResult = z.infer<typeof domainImportResultSchema>;

/** Path params `{ id, action }` of a policy list (`allow|block|all`). */
export const policyDomainListParamsSchema = z.object({ id: idSchema, action: z.enum(DOMAIN_LIST_KINDS) });
/** Path params `{ id, action }` of a new policy entry or an import (`allow|block`). */
export const policyDomainActionParamsSchema = z.object({ id: idSchema, action: z.enum(DOMAIN_ACTIONS) });
/** Path params `{ id, action, entryId }` of one policy entry (`action` may be `all`). */
export const policyDomainEntryParamsSchema = policyDomainListParamsSchema.extend({ entryId: idSchema });
/** Path params `{ action }` of a global list (`allow|block|all`). */
export const globalDomainListParamsSchema = z.object({ action: z.enum(DOMAIN_LIST_KINDS) });
/** Path params `{ action }` of a new global entry or an import (`allow|block`). */
export const globalDomainActionParamsSchema = z.object({ action: z.enum(DOMAIN_ACTIONS) });
/** Path params `{ action, id }` of one global entry (`action` may be `all`). */
export const globalDomainEntryParamsSchema = globalDomainListParamsSchema.extend({ id: idSchema });

/** The CSV columns of an export, in order; an import reads the same header (or takes a bare domain per line). */
export const DOMAIN_CSV_COLUMNS = ['domain', 'object', 'include_subdomains', 'comment', 'log_requests'] as const;

/**
 * The file name of a list's CSV export (spec-notes §9: the date as DD-MM-YYYY), e.g.
 * `domains-block-31-01-2025.csv`.
 * @param at the export's instant, epoch ms (the date is taken in UTC)
 */
export function domainExportFileName(kind: DomainListKind, at: number): string {
  return `domains-${kind}-${ddmmyyyy(new Date(at), 'utc')}.csv`;
}
