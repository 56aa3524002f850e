import { feeds } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import { acceptUploads, uploadedFile } from '../../http/multipart.ts';
import type { AppDeps } from '../../types.ts';

/**
 * Category-feed routes (docs/api.md "Category feeds"), from `Endpoints.feeds`; system admin only.
 * The upload reads a multipart body (field `file`, ≤ 1 MB): only its route accepts one.
 */
export async function registerFeedRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const e = Endpoints.feeds;
  registerEndpoint(app, e.list, ({ caller, query }) => feeds.listFeeds(deps, caller, query));
  registerEndpoint(app, e.create, ({ caller, body }) => feeds.createFeed(deps, caller, body));
  registerEndpoint(app, e.get, ({ caller, params }) => feeds.getFeed(deps, caller, params.feedId));
  registerEndpoint(app, e.update, ({ caller, params, body }) => feeds.updateFeed(deps, caller, params.feedId, body));
  registerEndpoint(app, e.remove, ({ caller, params, query }) => feeds.deleteFeed(deps, caller, params.feedId, query));
  registerEndpoint(app, e.dependants, ({ caller, params }) => feeds.feedDependants(deps, caller, params.feedId));
  registerEndpoint(app, e.run, ({ caller, params }) => feeds.runFeed(deps, caller, params.feedId));
  await app.register(async (scoped) => {
    await acceptUploads(scoped);
    registerEndpoint(scoped, e.upload, async ({ caller, params, request }) => {
      await feeds.getFeed(deps, caller, params.feedId); // a missing feed is 404 before the upload is read
      const bytes = await uploadedFile(request, 'file', 'A feed file is required in field file.');
      return feeds.uploadFeed(deps, caller, params.feedId, bytes);
    });
  });
}
