import { describe, expect, it } from 'vitest';
import { KeyAttemptLimiter } from '../src/blockpage/cloud-key.ts';

describe('cloud-key attempts at the block page', () => {
  const limits = { maxFailures: 3, windowMs: 60_000, maxClients: 2 };

  it('stops checking a client after its failures in the window, and lets it try again after', () => {
    const limiter = new KeyAttemptLimiter(limits);
    for (let i = 0; i < 3; i++) {
      expect(limiter.allows('192.0.2.1', 1_000 + i)).toBe(true);
      limiter.fail('192.0.2.1', 1_000 + i);
    }
    expect(limiter.allows('192.0.2.1', 2_000)).toBe(false);
    // Another client is not affected.
    expect(limiter.allows('192.0.2.2', 2_000)).toBe(true);
    // The window ends a minute after the first failure.
    expect(limiter.allows('192.0.2.1', 61_000)).toBe(true);
  });

  it('forgets a client whose key was accepted', () => {
    const limiter = new KeyAttemptLimiter(limits);
    limiter.fail('192.0.2.1', 0);
    limiter.fail('192.0.2.1', 1);
    limiter.succeed('192.0.2.1');
    limiter.fail('192.0.2.1', 2);
    limiter.fail('192.0.2.1', 3);
    expect(limiter.allows('192.0.2.1', 4)).toBe(true);
  });

  it('holds at most maxClients addresses, forgetting the oldest window first', () => {
    const limiter = new KeyAttemptLimiter(limits);
    for (let i = 0; i < 3; i++) limiter.fail('192.0.2.1', i);
    limiter.fail('192.0.2.2', 10);
    limiter.fail('192.0.2.3', 20); // evicts 192.0.2.1's window
    expect(limiter.allows('192.0.2.1', 30)).toBe(true);
  });
});
