import type { FormErrors, UseFormReturnType } from '@mantine/form';
import type { UseMutationResult } from '@tanstack/react-query';
import { zod4Resolver } from 'mantine-form-zod-resolver';
import type { z } from 'zod';
import { ApiCallError } from '../api/client.ts';

/**
 * A Mantine form validator from a shared zod schema (docs/contributing.md "Conventions" 10), so the messages are the
 * spec-notes §5 texts. `prepare` maps the form's values to the schema's input first (e.g. '' → undefined).
 * Each field shows its FIRST failed rule, so an empty required field says "This is a required field."
 * rather than the format rule checked after it (spec-notes §5).
 */
export function schemaValidator<V>(schema: z.ZodType, prepare: (values: V) => unknown = (v) => v) {
  const resolve = zod4Resolver(schema, { errorPriority: 'first' });
  return (values: V) => resolve(prepare(values) as Record<string, unknown>);
}

/**
 * Puts the per-field messages of a 400 answer (`fields`) on the form's fields (docs/api.md).
 * `toFormErrors` renames schema paths to the form's input paths where they differ.
 */
export function applyServerErrors<V>(
  form: UseFormReturnType<V>,
  error: unknown,
  toFormErrors: (errors: FormErrors) => FormErrors = (e) => e,
): void {
  if (error instanceof ApiCallError && error.fields) form.setErrors(toFormErrors(error.fields));
}

/** What {@link submitThrough} needs to send a form. */
export interface SubmitThroughOptions<V, Body> {
  form: UseFormReturnType<V>;
  /** The shared schema of the request body; the form was validated with it already. */
  schema: z.ZodType<Body>;
  /** Form values → the schema's input. */
  prepare: (values: V) => unknown;
  mutation: Pick<UseMutationResult<unknown, unknown, Body>, 'mutate'>;
  /** Called after a success (the caller shows its toast and closes the form). */
  onSuccess: () => void;
  toFormErrors?: (errors: FormErrors) => FormErrors;
}

/**
 * The submit handler of a create form: parse the prepared values with the shared schema, call the
 * mutation, and on a 400 put the server's field messages on the fields (other errors reach the
 * global response handling: spec-notes §8).
 */
export function submitThrough<V, Body>(opts: SubmitThroughOptions<V, Body>) {
  return opts.form.onSubmit((values) => {
    opts.mutation.mutate(opts.schema.parse(opts.prepare(values)), {
      onSuccess: opts.onSuccess,
      onError: (error) => applyServerErrors(opts.form, error, opts.toFormErrors),
    });
  });
}

/** Copies `values`, turning blank strings into undefined (optional fields left empty). */
export function blankToUndefined<T extends object>(values: T): { [K in keyof T]: T[K] | undefined } {
  const out = { ...values } as Record<string, unknown>;
  for (const [k, v] of Object.entries(out)) if (typeof v === 'string' && v.trim() === '') out[k] = undefined;
  return out as { [K in keyof T]: T[K] | undefined };
}
