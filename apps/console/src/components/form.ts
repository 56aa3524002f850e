import type { UseFormReturnType } from '@mantine/form';
import { zod4Resolver } from 'mantine-form-zod-resolver';
import type { z } from 'zod';
import { ApiError } from '../api/client.ts';

/**
 * A Mantine form validator from a shared zod schema (STYLE.md §10), so the messages are the
 * spec §5 texts. `prepare` maps the form's values to the schema's input first (e.g. '' → undefined).
 */
export function schemaValidator<V>(schema: z.ZodType, prepare: (values: V) => unknown = (v) => v) {
  const resolve = zod4Resolver(schema);
  return (values: V) => resolve(prepare(values) as Record<string, unknown>);
}

/** Puts the per-field messages of a 400 answer (`fields`) on the form's fields (DESIGN.md §5). */
export function applyServerErrors<V>(form: UseFormReturnType<V>, error: unknown): void {
  if (error instanceof ApiError && error.fields) form.setErrors(error.fields);
}

/** Copies `values`, turning blank strings into undefined (optional fields left empty). */
export function blankToUndefined<T extends object>(values: T): { [K in keyof T]: T[K] | undefined } {
  const out = { ...values } as Record<string, unknown>;
  for (const [k, v] of Object.entries(out)) if (typeof v === 'string' && v.trim() === '') out[k] = undefined;
  return out as { [K in keyof T]: T[K] | undefined };
}
