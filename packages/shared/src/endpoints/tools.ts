import { Role } from '../roles.ts';
import { idParamsSchema, listOf } from '../schemas/common.ts';
import {
  dnsLookupQuerySchema,
  dnsLookupResultSchema,
  recategorizeCreateSchema,
  recategorizeListQuerySchema,
  recategorizeRequestSchema,
  recategorizeReviewSchema,
  testCategoryBodySchema,
  testCategoryResultSchema,
} from '../schemas/tools.ts';
import { defineEndpoint } from './define.ts';

const tag = 'tools';

/** Tools (spec-notes §7 "UI and tools"): test categorisation and recategorisation requests. */
export const toolEndpoints = {
  testCategory: defineEndpoint({
    method: 'POST',
    path: '/tools/test/category',
    body: testCategoryBodySchema,
    response: testCategoryResultSchema,
    status: 200,
    access: { scope: 'owned', roles: [Role.System, Role.Msp, Role.Customer] },
    tag,
    summary:
      "A domain's categories and the decision under a customer's policy, answered by the resolver's own policy engine (spec-notes §7 UI and tools).",
  }),
  recategorize: defineEndpoint({
    method: 'POST',
    path: '/tools/recategorize',
    body: recategorizeCreateSchema,
    response: recategorizeRequestSchema,
    status: 201,
    access: { scope: 'owned', roles: [Role.System, Role.Msp, Role.Customer] },
    tag,
    summary:
      'Ask for a domain to be recategorised: a request in the queue the system admin reviews (spec-notes §7 UI and tools).',
  }),
  recategorizeList: defineEndpoint({
    method: 'GET',
    path: '/tools/recategorize',
    query: recategorizeListQuerySchema,
    response: listOf(recategorizeRequestSchema),
    status: 200,
    access: { scope: 'owned', roles: [Role.System, Role.Msp, Role.Customer] },
    tag,
    summary:
      "Recategorisation requests: every one for the system admin, the MSP's and its customers' for an MSP admin, its own for a customer admin (spec-notes §7 UI and tools).",
  }),
  recategorizeReview: defineEndpoint({
    method: 'POST',
    path: '/tools/recategorize/:id/review',
    params: idParamsSchema,
    body: recategorizeReviewSchema,
    response: recategorizeRequestSchema,
    status: 200,
    access: { scope: 'system', roles: [Role.System] },
    tag,
    summary:
      'Approve (the domain gets the category, over every feed, in the resolver within a second) or reject a pending request (spec-notes §7 UI and tools).',
  }),
  dnsLookup: defineEndpoint({
    method: 'GET',
    path: '/tools/dns',
    query: dnsLookupQuerySchema,
    response: dnsLookupResultSchema,
    status: 200,
    access: { scope: 'owned', roles: [Role.System, Role.Msp] },
    tag,
    summary:
      "A name's A, AAAA, CNAME, MX and TXT records as Cordon's upstream resolvers answer them, unfiltered (spec-notes §7 UI and tools).",
  }),
} as const;
