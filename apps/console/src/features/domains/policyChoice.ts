/** A policy as the picker needs it. */
export interface PolicyChoice {
  readonly id: number;
  readonly name: string;
  readonly is_default: boolean;
}

/**
 * The policy whose lists the customer page shows: the one named in the URL (`?policy=`) when the
 * customer has it, else the default policy (spec-notes §2: preselected), else the first; null without policies.
 */
export function choosePolicy(policies: readonly PolicyChoice[], requested: string | null): PolicyChoice | null {
  const id = requested !== null && /^\d+$/.test(requested) ? Number(requested) : null;
  return (
    (id !== null ? policies.find((p) => p.id === id) : undefined) ??
    policies.find((p) => p.is_default) ??
    policies[0] ??
    null
  );
}
