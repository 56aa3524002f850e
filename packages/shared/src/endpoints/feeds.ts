import { Role } from '../roles.ts';
import { deletedResponseSchema, listOf } from '../schemas/common.ts';
import { confirmNameQuerySchema, dependantsResponseSchema } from '../schemas/dependants.ts';
import {
  feedCreateSchema,
  feedListQuerySchema,
  feedParamsSchema,
  feedRunSchema,
  feedSchema,
  feedUpdateSchema,
} from '../schemas/feed.ts';
import { defineEndpoint } from './define.ts';

const tag = 'feeds';
/** The category database is the deployment's: only the system admin manages its feeds. */
const access = { scope: 'system', roles: [Role.System] } as const;

/**
 * Category feeds (docs/api.md "Category feeds"; the spec names no route: docs/decisions.md "Category
 * feeds"): hosts files, plain domain lists and AdBlock-style lists besides UT1, each mapped to one
 * category, fetched from an `https:` URL on a schedule by the worker, run by hand, or uploaded.
 */
export const feedEndpoints = {
  list: defineEndpoint({
    method: 'GET',
    path: '/feeds',
    query: feedListQuerySchema,
    response: listOf(feedSchema),
    status: 200,
    access,
    tag,
    summary: 'The category feed sources with their last run (docs/api.md Category feeds).',
  }),
  create: defineEndpoint({
    method: 'POST',
    path: '/feeds',
    body: feedCreateSchema,
    response: feedSchema,
    status: 201,
    access,
    tag,
    summary: 'Add a category feed source: name, format, category, optional https URL and interval.',
  }),
  get: defineEndpoint({
    method: 'GET',
    path: '/feeds/:feedId',
    params: feedParamsSchema,
    response: feedSchema,
    status: 200,
    access,
    tag,
    summary: 'One category feed source.',
  }),
  update: defineEndpoint({
    method: 'PATCH',
    path: '/feeds/:feedId',
    params: feedParamsSchema,
    body: feedUpdateSchema,
    response: feedSchema,
    status: 200,
    access,
    tag,
    summary: "Change a feed source; a new category moves the feed's names to it at once.",
  }),
  remove: defineEndpoint({
    method: 'DELETE',
    path: '/feeds/:feedId',
    params: feedParamsSchema,
    query: confirmNameQuerySchema,
    response: deletedResponseSchema,
    status: 200,
    access,
    tag,
    summary:
      'Delete a feed source and the categorisations it brought; one that brought names needs confirm_name (its name), else 409 ERR_IN_USE (docs/api.md "Deletes of things in use").',
  }),
  /** Ours (issue 29): the names a delete of the feed takes out of the category database. */
  dependants: defineEndpoint({
    method: 'GET',
    path: '/feeds/:feedId/dependants',
    params: feedParamsSchema,
    response: dependantsResponseSchema,
    status: 200,
    access,
    tag,
    summary:
      'The names (kind domains) a delete of the feed removes from its category (docs/api.md "Deletes of things in use").',
  }),
  run: defineEndpoint({
    method: 'POST',
    path: '/feeds/:feedId/run',
    params: feedParamsSchema,
    response: feedRunSchema,
    status: 200,
    access,
    tag,
    summary: "Fetch a feed's URL now and replace its names (all or nothing); the outcome is stored either way.",
  }),
  upload: defineEndpoint({
    method: 'POST',
    path: '/feeds/:feedId/upload',
    params: feedParamsSchema,
    response: feedRunSchema,
    status: 200,
    access,
    tag,
    summary: "Import a feed file (multipart field file, at most 1 MB) as the feed's names, all or nothing.",
  }),
};
