import { describe, expect, it } from 'vitest';
import {
  NO_EXCEPTION,
  policyChoiceFieldErrors,
  policyChoiceValues,
  preparePolicyChoice,
} from './PolicyChoiceFields.tsx';

describe('the policy inheritance choice (spec-notes §4)', () => {
  it('sends a policy only with "a specific policy", and null for no exception', () => {
    expect(preparePolicyChoice({ policy_mode: 'default', policy: '4', exception: NO_EXCEPTION })).toEqual({
      policy_mode: 'default',
      policy_id: null,
      device_exception_id: null,
    });
    expect(preparePolicyChoice({ policy_mode: 'policy', policy: '4', exception: '9' })).toEqual({
      policy_mode: 'policy',
      policy_id: 4,
      device_exception_id: 9,
    });
    expect(preparePolicyChoice({ policy_mode: 'group', policy: '', exception: NO_EXCEPTION }).policy_id).toBeNull();
  });

  it("reads a stored choice back into the form, and puts the server's field errors on the form's fields", () => {
    const stored = { policy_mode: 'policy' as const, policy_id: 4, device_exception_id: null };
    expect(policyChoiceValues(stored)).toEqual({ policy_mode: 'policy', policy: '4', exception: NO_EXCEPTION });
    expect(preparePolicyChoice(policyChoiceValues(stored))).toEqual(stored);
    expect(
      policyChoiceFieldErrors({ policy_id: 'Select a policy', device_exception_id: 'Unknown', name: 'Too long' }),
    ).toEqual({
      policy: 'Select a policy',
      exception: 'Unknown',
      name: 'Too long',
    });
  });
});
