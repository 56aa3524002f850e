import { z } from 'zod';
import { categoryById } from '../categories.ts';
import { Constants } from '../constants.ts';
import { Messages } from '../messages.ts';
import { isDomainName, looksLikeUrl } from '../net.ts';
import { QUERY_ACTIONS, QUERY_REASONS } from '../outcome.ts';
import { idSchema, listQuerySchema } from './common.ts';

/** A domain to test (spec-notes §5: a domain, not a URL). */
export const toolDomainSchema = z
  .string({ error: Messages.required })
  .trim()
  .min(1, { error: Messages.required })
  .max(253, { error: 'Domain must be at most 253 characters long.' })
  .refine((v) => !looksLikeUrl(v), { error: Messages.domainOnly })
  .refine((v) => isDomainName(v.replace(/\.$/, ''), { allowSingleLabel: true }), { error: Messages.domainOnly });

/**
 * Body of `POST /tools/test/category` (spec-notes §7 "UI and tools"): the domain, and the policy to decide
 * under — `policy_id` (a customer's policy), else the default policy of `user_id` (a customer admin:
 * its own); neither (system or MSP admin): the categories only.
 */
export const testCategoryBodySchema = z.object({
  domain: toolDomainSchema,
  policy_id: idSchema.optional(),
  user_id: idSchema.optional(),
});
export type TestCategoryBody = z.infer<typeof testCategoryBodySchema>;

/** The answer of `POST /tools/test/category`: the resolver's own decision for the name (docs/architecture.md "Decision order"). */
export const testCategoryResultSchema = z.object({
  /** The name as the resolver sees it (lower case, no trailing dot, A-labels). */
  domain: z.string(),
  /** Every category of the name and its parents, with their names. */
  categories: z.array(z.object({ id: z.number().int(), name: z.string() })),
  /** The policy decided under; null: none (categories only). */
  policy: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  action: z.enum(QUERY_ACTIONS),
  /** The decision-order step that decided. */
  reason: z.enum(QUERY_REASONS),
  /** For a static route: the resolver the name is forwarded to. */
  forward_to: z.string().nullable(),
});
export type TestCategoryResult = z.infer<typeof testCategoryResultSchema>;

/** The statuses of a recategorisation request. */
export const RECATEGORIZE_STATUSES = ['pending', 'approved', 'rejected'] as const;
export type RecategorizeStatus = (typeof RECATEGORIZE_STATUSES)[number];

/** Body of `POST /tools/recategorize` (spec-notes §7): the domain, the category it should have, an optional comment. */
export const recategorizeCreateSchema = z.object({
  domain: toolDomainSchema,
  category_id: z
    .number({ error: Messages.required })
    .int()
    .refine((id) => categoryById(id) !== undefined && id !== 0, { error: 'Select a category.' }),
  comment: z.string().trim().max(Constants.textMax, { error: Messages.max200 }).default(''),
});
export type RecategorizeCreate = z.infer<typeof recategorizeCreateSchema>;

/** A recategorisation request as the queue shows it. */
export const recategorizeRequestSchema = z.object({
  id: z.number().int(),
  domain: z.string(),
  category: z.object({ id: z.number().int(), name: z.string() }),
  /** The name's categories now (every source, its parents' too), to compare with the one asked for. */
  current_categories: z.array(z.object({ id: z.number().int(), name: z.string() })),
  comment: z.string(),
  status: z.enum(RECATEGORIZE_STATUSES),
  requested_by: z.string(),
  msp_id: z.number().int().nullable(),
  customer_id: z.number().int().nullable(),
  created_at: z.string(),
  reviewed_at: z.string().nullable(),
});
export type RecategorizeRequest = z.infer<typeof recategorizeRequestSchema>;

/** Query of `GET /tools/recategorize`: the list query and an optional status. */
export const recategorizeListQuerySchema = listQuerySchema.extend({
  sortkey: z.string().trim().min(1).max(64).default('created_at'),
  sortdir: z.enum(['asc', 'desc']).default('desc'),
  status: z.enum(RECATEGORIZE_STATUSES).optional(),
});
export type RecategorizeListQuery = z.infer<typeof recategorizeListQuerySchema>;

/** Body of `POST /tools/recategorize/{id}/review`: approve (the override reaches the resolver within a second) or reject. */
export const recategorizeReviewSchema = z.object({ action: z.enum(['approve', 'reject']) });
export type RecategorizeReview = z.infer<typeof recategorizeReviewSchema>;

/** The record types the DNS lookup tool asks for (spec-notes §7 `GET /tools/dns`; issue 11). */
export const DNS_LOOKUP_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT'] as const;

/** Query of `GET /tools/dns`: the name to look up. */
export const dnsLookupQuerySchema = z.object({ domain: toolDomainSchema });
export type DnsLookupQuery = z.infer<typeof dnsLookupQuerySchema>;

/** The answer of `GET /tools/dns`: what Cordon's upstream resolvers answer for the name, by type. */
export const dnsLookupResultSchema = z.object({
  domain: z.string(),
  /** The resolvers asked (`host:port`); empty: the host's own. */
  upstreams: z.array(z.string()),
  /** `NOERROR` (records or none), `NXDOMAIN` (no such name) or `SERVFAIL` (no usable answer). */
  status: z.enum(['NOERROR', 'NXDOMAIN', 'SERVFAIL']),
  records: z.array(
    z.object({
      type: z.enum(DNS_LOOKUP_TYPES),
      data: z.string(),
      /** Seconds, when the resolver gives it (A and AAAA). */
      ttl: z.number().int().nullable(),
    }),
  ),
});
export type DnsLookupResult = z.infer<typeof dnsLookupResultSchema>;
