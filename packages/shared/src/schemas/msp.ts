import { z } from 'zod';
import { emailSchema, newPasswordSchema, optionalText, requiredText, safeName, timeZoneSchema } from './common.ts';

/** An MSP (spec-notes §3 "MSP"): id, name, business or company name, license, timezone. */
export const mspSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  company_name: z.string(),
  license: z.string(),
  timezone: z.string(),
  customers_count: z.number().int(),
  created_at: z.string(),
});
export type Msp = z.infer<typeof mspSchema>;

/**
 * Body of `POST /msp`. The optional primary admin (`admin_*`) becomes the MSP's `is_default` role-3
 * admin (docs/architecture.md "Tenancy"); all three admin fields go together.
 */
export const mspCreateSchema = z
  .object({
    name: safeName,
    company_name: requiredText,
    license: optionalText.default(''),
    timezone: timeZoneSchema.default(''),
    admin_email: emailSchema.optional(),
    admin_name: requiredText.optional(),
    admin_password: newPasswordSchema.optional(),
  })
  .refine((b) => (b.admin_email === undefined) === (b.admin_password === undefined), {
    error: 'admin_email and admin_password go together.',
    path: ['admin_password'],
  });
export type MspCreate = z.infer<typeof mspCreateSchema>;

/** Body of `PUT /msp/{id}`: any of the editable fields. */
export const mspUpdateSchema = z.object({
  name: safeName.optional(),
  company_name: requiredText.optional(),
  license: optionalText.optional(),
  timezone: timeZoneSchema.optional(),
});
export type MspUpdate = z.infer<typeof mspUpdateSchema>;
