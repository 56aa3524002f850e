import { describe, expect, it } from 'vitest';
import { systemAllowRule } from '../../src/engine/rules/system-allow.ts';
import { lists, snapshot, who } from './helpers.ts';

describe('system-allow rule (step 4)', () => {
  const entries = ['*.listed.example'];
  const snap = snapshot({ systemLists: lists(entries, []) });

  it("matches the system's allow list for every client", () => {
    expect(systemAllowRule.decide(snap, { ...who(null), mspId: 99 }, 'listed.example', 0)).toEqual({
      action: 'allowed',
      reason: 'global_allow',
      categories: [],
    });
  });

  it('passes for other names and when empty', () => {
    expect(systemAllowRule.decide(snap, who(null), 'example.org', 0)).toBeNull();
    expect(systemAllowRule.decide(snapshot(), who(null), 'listed.example', 0)).toBeNull();
  });
});
