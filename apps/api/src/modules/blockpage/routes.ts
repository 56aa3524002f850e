import { blockpage } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import { acceptUploads, uploadedFile } from '../../http/multipart.ts';
import type { AppDeps } from '../../types.ts';

/**
 * Block-page branding routes (spec-notes §7 `GET|POST|DELETE /ui/blockpage`), from `Endpoints.blockpage`.
 * The logo upload (`POST /ui/blockpage/logo`, multipart field `logo`) is the spec's multipart variant.
 * Scope `owned`: the owner comes from `user_id` / `msp_id` or the caller, checked visible by core in SQL.
 */
export async function registerBlockPageRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const e = Endpoints.blockpage;
  await app.register(async (scoped) => {
    await acceptUploads(scoped);
    registerEndpoint(scoped, e.setLogo, async ({ caller, query, request }) => {
      await blockpage.getBlockPage(deps, caller, query); // a foreign owner is 404 before the upload is read
      const bytes = await uploadedFile(request, 'logo', 'An image file is required in field logo.');
      return blockpage.setBlockPageLogo(deps, caller, query, bytes);
    });
  });
  registerEndpoint(app, e.removeLogo, ({ caller, query }) => blockpage.deleteBlockPageLogo(deps, caller, query));
  registerEndpoint(app, e.get, ({ caller, query }) => blockpage.getBlockPage(deps, caller, query));
  registerEndpoint(app, e.set, ({ caller, query, body }) => blockpage.setBlockPage(deps, caller, query, body));
  registerEndpoint(app, e.remove, ({ caller, query }) => blockpage.deleteBlockPage(deps, caller, query));
}
