import { Role } from '../roles.ts';
import { deletedResponseSchema } from '../schemas/common.ts';
import {
  mailQuerySchema,
  mailSettingsSchema,
  mailSettingsUpdateSchema,
  mailTestResponseSchema,
  mailTestSchema,
} from '../schemas/mail.ts';
import { defineEndpoint } from './define.ts';

const tag = 'mail';
/** The owner comes from `msp_id` (or the caller), checked visible by core in SQL; customers have no mail settings. */
const access = { scope: 'owned', roles: [Role.System, Role.Msp] } as const;

/** Mail settings (spec-notes §7 "UI and tools": `GET /mail`, and `POST /mail` with `msp_id`; docs/api.md "Mail"). */
export const mailEndpoints = {
  get: defineEndpoint({
    method: 'GET',
    path: '/mail',
    query: mailQuerySchema,
    response: mailSettingsSchema,
    status: 200,
    access,
    tag,
    summary: "Mail settings: the system's, or an MSP's (msp_id) with the system's as fallback (spec-notes §7).",
  }),
  set: defineEndpoint({
    method: 'POST',
    path: '/mail',
    query: mailQuerySchema,
    body: mailSettingsUpdateSchema,
    response: mailSettingsSchema,
    status: 200,
    access,
    tag,
    summary: 'Set the mail server, sender, from address and notification period (spec-notes §7 UI and tools).',
  }),
  remove: defineEndpoint({
    method: 'DELETE',
    path: '/mail',
    query: mailQuerySchema,
    response: deletedResponseSchema,
    status: 200,
    access,
    tag,
    summary: 'Remove an MSP\'s own mail settings: the system\'s apply again (docs/api.md "Mail").',
  }),
  test: defineEndpoint({
    method: 'POST',
    path: '/mail/test',
    query: mailQuerySchema,
    body: mailTestSchema,
    response: mailTestResponseSchema,
    status: 200,
    access,
    tag,
    summary: 'Send a test e-mail through the effective mail settings (spec-notes §1 "email settings").',
  }),
} as const;
