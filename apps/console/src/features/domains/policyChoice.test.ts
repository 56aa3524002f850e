import { describe, expect, it } from 'vitest';
import { choosePolicy } from './policyChoice.ts';

const policies = [
  { id: 3, name: 'Guests', is_default: false },
  { id: 1, name: 'Default', is_default: true },
  { id: 9, name: 'Staff', is_default: false },
];

describe('the policy picker of the customer domains page (spec-notes §2)', () => {
  it('preselects the default policy, keeps a valid ?policy= choice and ignores a foreign or malformed one', () => {
    expect(choosePolicy(policies, null)?.id).toBe(1);
    expect(choosePolicy(policies, '9')?.id).toBe(9);
    expect(choosePolicy(policies, '404')?.id).toBe(1);
    expect(choosePolicy(policies, '9abc')?.id).toBe(1);
    expect(choosePolicy(policies.slice(0, 1), null)?.id).toBe(3);
    expect(choosePolicy([], '3')).toBeNull();
  });
});
