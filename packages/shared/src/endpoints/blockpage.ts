import { Role } from '../roles.ts';
import { blockPageQuerySchema, blockPageSchema, blockPageUpdateSchema } from '../schemas/blockpage.ts';
import { deletedResponseSchema } from '../schemas/common.ts';
import { defineEndpoint } from './define.ts';

const tag = 'blockpage';
/** The owner comes from `user_id` / `msp_id` (or the caller), checked visible by core in SQL. */
const access = { scope: 'owned', roles: [Role.System, Role.Msp, Role.Customer] } as const;

/** Block-page branding (spec-notes §7 "UI and tools": GET, POST and DELETE `/ui/blockpage` with `user_id` or `msp_id`). */
export const blockPageEndpoints = {
  get: defineEndpoint({
    method: 'GET',
    path: '/ui/blockpage',
    query: blockPageQuerySchema,
    response: blockPageSchema,
    status: 200,
    access,
    tag,
    summary:
      "A block page's branding: a customer's (user_id), an MSP's (msp_id) or the system's (spec-notes §7 UI and tools).",
  }),
  set: defineEndpoint({
    method: 'POST',
    path: '/ui/blockpage',
    query: blockPageQuerySchema,
    body: blockPageUpdateSchema,
    response: blockPageSchema,
    status: 200,
    access,
    tag,
    summary: "Set a block page's title, message, footer and support contact (spec-notes §7 UI and tools).",
  }),
  setLogo: defineEndpoint({
    method: 'POST',
    path: '/ui/blockpage/logo',
    query: blockPageQuerySchema,
    response: blockPageSchema,
    status: 200,
    access,
    tag,
    summary:
      "Upload a block page's logo: multipart field logo, PNG, JPEG, GIF or WebP, at most 1 MB and 1024 pixels a side (spec-notes §7 UI and tools, multipart variant).",
  }),
  removeLogo: defineEndpoint({
    method: 'DELETE',
    path: '/ui/blockpage/logo',
    query: blockPageQuerySchema,
    response: blockPageSchema,
    status: 200,
    access,
    tag,
    summary: "Remove a block page's logo: the next level's shows again (spec-notes §7 UI and tools).",
  }),
  remove: defineEndpoint({
    method: 'DELETE',
    path: '/ui/blockpage',
    query: blockPageQuerySchema,
    response: deletedResponseSchema,
    status: 200,
    access,
    tag,
    summary: "Remove a block page's branding: the next level's applies again (spec-notes §7 UI and tools).",
  }),
};
