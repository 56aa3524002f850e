import { Role } from '../roles.ts';
import { uiInterfaceSchema, uiQuerySchema, uiSupportSchema, uiSupportUpdateSchema } from '../schemas/ui.ts';
import { defineEndpoint } from './define.ts';

const tag = 'ui';
/** Read: every tenant role (a customer reads its MSP's branding); the level comes from `msp_id` or the caller. */
const readAccess = { scope: 'owned', roles: [Role.System, Role.Msp, Role.Customer] } as const;
/** Write: the system admin (system level or any MSP's) and an MSP admin (its own MSP's). */
const writeAccess = { scope: 'owned', roles: [Role.System, Role.Msp] } as const;

/** Interface branding and support contacts (spec-notes §7 "UI and tools": `/ui/interface`, `/ui/support`). */
export const uiEndpoints = {
  getInterface: defineEndpoint({
    method: 'GET',
    path: '/ui/interface',
    query: uiQuerySchema,
    response: uiInterfaceSchema,
    status: 200,
    access: readAccess,
    tag,
    summary:
      "Interface branding (logo, title, nameservers) of the caller's level or of msp_id, with what the console shows (spec-notes §7 UI and tools).",
  }),
  setInterface: defineEndpoint({
    method: 'POST',
    path: '/ui/interface',
    query: uiQuerySchema,
    response: uiInterfaceSchema,
    status: 200,
    access: writeAccess,
    tag,
    summary:
      'Set the interface branding: multipart fields title, nameservers (comma or newline separated) and file logo (PNG, JPEG, GIF or WebP, at most 1 MB and 1024 pixels a side); absent fields are unchanged (spec-notes §7 UI and tools).',
  }),
  removeLogo: defineEndpoint({
    method: 'DELETE',
    path: '/ui/interface/logo',
    query: uiQuerySchema,
    response: uiInterfaceSchema,
    status: 200,
    access: writeAccess,
    tag,
    summary: "Remove the level's interface logo: the system's (or none) shows again (spec-notes §7 UI and tools).",
  }),
  removeTitle: defineEndpoint({
    method: 'DELETE',
    path: '/ui/interface/title',
    query: uiQuerySchema,
    response: uiInterfaceSchema,
    status: 200,
    access: writeAccess,
    tag,
    summary:
      "Remove the level's interface title: the system's (or the product's) shows again (spec-notes §7 UI and tools).",
  }),
  getSupport: defineEndpoint({
    method: 'GET',
    path: '/ui/support',
    query: uiQuerySchema,
    response: uiSupportSchema,
    status: 200,
    access: readAccess,
    tag,
    summary:
      "Support contacts (email, link, support desk URL) of the caller's level or of msp_id; a customer reads its MSP's, else the system's (spec-notes §7 UI and tools).",
  }),
  setSupport: defineEndpoint({
    method: 'PUT',
    path: '/ui/support',
    query: uiQuerySchema,
    body: uiSupportUpdateSchema,
    response: uiSupportSchema,
    status: 200,
    access: writeAccess,
    tag,
    summary: "Set the support contacts of the caller's level or of msp_id (spec-notes §7 UI and tools).",
  }),
} as const;
