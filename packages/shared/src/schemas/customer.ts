import { z } from 'zod';
import { FILTERING_LEVELS } from '../categories.ts';
import {
  emailSchema,
  idSchema,
  listQuerySchema,
  newPasswordSchema,
  requiredText,
  safeName,
  timeZoneSchema,
} from './common.ts';

/**
 * A customer account (spec-notes §3 "Customer account"; in the API a customer is a "user": `/users/{id}`).
 * `default_policy_id` is the customer's default policy.
 */
export const customerSchema = z.object({
  id: z.number().int(),
  accountName: z.string(),
  uuid_str: z.string(),
  timezone: z.string(),
  msp_id: z.number().int(),
  msp_name: z.string(),
  default_policy_id: z.number().int().nullable(),
  created_at: z.string(),
});
export type Customer = z.infer<typeof customerSchema>;

/**
 * Query of `GET /users/`: optional `msp_id` plus the list query (sortkey: name, id, timezone,
 * created_at). A system admin may filter by MSP; an MSP admin always sees its own MSP's customers.
 */
export const customerListQuerySchema = listQuerySchema.extend({ msp_id: idSchema.optional() });
export type CustomerListQuery = z.infer<typeof customerListQuerySchema>;

/**
 * Body of `POST /users/`. `msp_id` is required for a system admin and must equal the caller's MSP
 * for an MSP admin. `default_level` overrides the level of the default policy,
 * which is otherwise copied from the MSP's global default policy (docs/api.md "Default policies"). An optional
 * customer admin (role 4) is created with `admin_email` + `admin_password`.
 */
export const customerCreateSchema = z.object({
  accountName: safeName,
  msp_id: idSchema.optional(),
  timezone: timeZoneSchema.default(''),
  default_level: z.enum(FILTERING_LEVELS).optional(),
  admin_email: emailSchema.optional(),
  admin_name: requiredText.optional(),
  admin_password: newPasswordSchema.optional(),
});
export type CustomerCreate = z.infer<typeof customerCreateSchema>;

/** Body of `POST /users/{id}` (an update, as the spec's call is a POST). */
export const customerUpdateSchema = z.object({
  accountName: safeName.optional(),
  timezone: timeZoneSchema.optional(),
});
export type CustomerUpdate = z.infer<typeof customerUpdateSchema>;

/**
 * `GET /users/{id}/all` (spec-notes §7 Customers; spec-notes §3 "Customer account": accountName, allCustomers):
 * the account of MSP `id` with every one of its customers, unpaged, by name — what a customer
 * picker needs (docs/decisions.md "Tenants, branding, tools").
 */
export const mspAccountSchema = z.object({
  id: z.number().int(),
  accountName: z.string(),
  allCustomers: z.array(customerSchema.pick({ id: true, accountName: true, uuid_str: true, timezone: true })),
});
export type MspAccount = z.infer<typeof mspAccountSchema>;
