import { z } from 'zod';

/** What the console needs back from a create call: the new id (other fields are ignored). */
export const createdSchema = z.looseObject({ id: z.number().int() });
