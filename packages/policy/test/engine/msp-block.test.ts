import { describe, expect, it } from 'vitest';
import { mspBlockRule } from '../../src/engine/rules/msp-block.ts';
import { lists, snapshot, who } from './helpers.ts';

describe('msp-block rule (step 4)', () => {
  const entries = ['*.listed.example'];
  const snap = snapshot({
    mspLists: new Map([[7, lists([], entries)]]),
  });

  it("matches the client's MSP's block list", () => {
    expect(mspBlockRule.decide(snap, who(null), 'www.listed.example', 0)).toEqual({
      action: 'blocked',
      reason: 'msp_block',
      categories: [],
    });
  });

  it('passes for another MSP, another name, or no MSP lists', () => {
    expect(mspBlockRule.decide(snap, { ...who(null), mspId: 8 }, 'www.listed.example', 0)).toBeNull();
    expect(mspBlockRule.decide(snap, who(null), 'other.example', 0)).toBeNull();
    expect(mspBlockRule.decide(snapshot(), who(null), 'www.listed.example', 0)).toBeNull();
  });
});
