import { describe, expect, it } from 'vitest';
import { systemBlockRule } from '../../src/engine/rules/system-block.ts';
import { lists, snapshot, who } from './helpers.ts';

describe('system-block rule (step 4)', () => {
  const entries = ['*.listed.example'];
  const snap = snapshot({ systemLists: lists([], entries) });

  it("matches the system's block list for every client", () => {
    expect(systemBlockRule.decide(snap, { ...who(null), mspId: 99 }, 'listed.example', 0)).toEqual({
      action: 'blocked',
      reason: 'global_block',
      categories: [],
    });
  });

  it('passes for other names and when empty', () => {
    expect(systemBlockRule.decide(snap, who(null), 'example.org', 0)).toBeNull();
    expect(systemBlockRule.decide(snapshot(), who(null), 'listed.example', 0)).toBeNull();
  });
});
