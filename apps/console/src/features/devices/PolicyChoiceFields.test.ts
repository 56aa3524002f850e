import { describe, expect, it } from 'vitest';
import { NO_EXCEPTION, preparePolicyChoice } from './PolicyChoiceFields.tsx';

describe('the policy inheritance choice (spec §4)', () => {
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
});
