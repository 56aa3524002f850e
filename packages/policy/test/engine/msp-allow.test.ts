import { describe, expect, it } from 'vitest';
import { mspAllowRule } from '../../src/engine/rules/msp-allow.ts';
import { lists, snapshot, who } from './helpers.ts';

describe('msp-allow rule (step 4)', () => {
  const entries = ['*.listed.example'];
  const snap = snapshot({
    mspLists: new Map([[7, lists(entries, [])]]),
  });

  it("matches the client's MSP's allow list", () => {
    expect(mspAllowRule.decide(snap, who(null), 'www.listed.example', 0)).toEqual({
      action: 'allowed',
      reason: 'msp_allow',
      categories: [],
    });
  });

  it('passes for another MSP, another name, or no MSP lists', () => {
    expect(mspAllowRule.decide(snap, { ...who(null), mspId: 8 }, 'www.listed.example', 0)).toBeNull();
    expect(mspAllowRule.decide(snap, who(null), 'other.example', 0)).toBeNull();
    expect(mspAllowRule.decide(snapshot(), who(null), 'www.listed.example', 0)).toBeNull();
  });
});
