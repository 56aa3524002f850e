import { describe, expect, it } from 'vitest';
import { collectGarbageTwice } from '../src/dataplane/gc.ts';
import { releaseLoadMemory } from '../src/dataplane/host.ts';

// What `cordon serve` gives back once its first snapshot is loaded, through public Node APIs only
// (docs/decisions.md "The addon does UDP I/O only").
describe('releaseLoadMemory', () => {
  it('returns the heap pages of dead loader objects and keeps every live one', () => {
    // Old-space garbage as a load leaves it: objects that survived the scavenges, then dropped.
    let rows: Array<{ id: number; name: string }> | null = Array.from({ length: 400_000 }, (_, i) => ({
      id: i,
      name: `domain-${i}.example`,
    }));
    const live = rows.slice(0, 1000);
    rows = null;
    const released = releaseLoadMemory();
    expect(released.heapBytes).toBeGreaterThan(8 << 20);
    expect(live.reduce((sum, r) => sum + r.id, 0)).toBe((999 * 1000) / 2);
    expect(live[999]?.name).toBe('domain-999.example');
    expect(rows).toBeNull();
  });

  it('can run again on a thread whose garbage is already gone (it gives back about nothing)', () => {
    collectGarbageTwice();
    expect(Math.abs(collectGarbageTwice())).toBeLessThan(4 << 20);
  });
});
