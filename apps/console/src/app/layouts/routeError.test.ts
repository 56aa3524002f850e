import { describe, expect, it, vi } from 'vitest';
import { withChunkTimeout } from '../router.tsx';
import { ChunkLoadError, isChunkLoadError } from './RouteError.tsx';

describe('the chunk-load error (spec-notes §8, §9: 120 s script chunk timeout)', () => {
  it("recognises the browsers' failed dynamic imports and our timeout, nothing else", () => {
    expect(isChunkLoadError(new TypeError('Failed to fetch dynamically imported module: /assets/x.js'))).toBe(true);
    expect(isChunkLoadError(new TypeError('Importing a module script failed.'))).toBe(true);
    expect(isChunkLoadError(new ChunkLoadError('late'))).toBe(true);
    expect(isChunkLoadError(new Error('Cannot read properties of undefined'))).toBe(false);
  });

  it('fails a page load that takes longer than the timeout, passes one that does not', async () => {
    vi.useFakeTimers();
    try {
      const hung = withChunkTimeout(() => new Promise<never>(() => undefined), 120_000);
      const caught = hung.catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(119_999);
      await vi.advanceTimersByTimeAsync(1);
      expect(await caught).toBeInstanceOf(ChunkLoadError);
      await expect(withChunkTimeout(() => Promise.resolve('page'), 120_000)).resolves.toBe('page');
    } finally {
      vi.useRealTimers();
    }
  });
});
