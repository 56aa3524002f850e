import { describe, expect, it } from 'vitest';
import { ConfigError, describeConfig, resolveServeConfig } from '../src/config.ts';

/** `--max-list-entries` / `CORDON_MAX_LIST_ENTRIES` (docs/operations.md "List sizes"). */
describe('the list-size setting', () => {
  const base = { CORDON_UPSTREAM: '127.0.0.1:53' };

  it('defaults to 100,000 entries per list and shows on the boot line', () => {
    const c = resolveServeConfig({}, base);
    expect(c.maxListEntries).toBe(100_000);
    expect(describeConfig(c, 'x')).toContain('max_list_entries=100000');
  });

  it('comes from the flag over the variable, and refuses 0 or text', () => {
    expect(resolveServeConfig({}, { ...base, CORDON_MAX_LIST_ENTRIES: '5000' }).maxListEntries).toBe(5000);
    expect(
      resolveServeConfig({ maxListEntries: '250' }, { ...base, CORDON_MAX_LIST_ENTRIES: '5000' }).maxListEntries,
    ).toBe(250);
    expect(() => resolveServeConfig({ maxListEntries: '0' }, base)).toThrow(ConfigError);
    expect(() => resolveServeConfig({ maxListEntries: 'many' }, base)).toThrow(/--max-list-entries/);
  });
});
