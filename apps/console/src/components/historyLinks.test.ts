import { describe, expect, it } from 'vitest';
import { drillQuery, historyLink, readDrillFilters, userKeyFilter } from './historyLinks.ts';

describe('drill-down links into the history (issue 29)', () => {
  it('writes the action, period and one exact filter into the address', () => {
    expect(historyLink({ period: 'today' })).toBe('/customer/reporting/history_reports');
    expect(historyLink({ action: 'blocked', period: '7days', filter: { key: 'domain', value: 'ads.example' } })).toBe(
      '/customer/reporting/history_reports?action=blocked&period=7days&domain=ads.example',
    );
    expect(historyLink({ filter: { key: 'category', value: 12, name: 'Gambling & betting' } })).toBe(
      '/customer/reporting/history_reports?category=12&category_name=Gambling+%26+betting',
    );
  });

  it("maps a top list's user keys to the user, the device or the client address", () => {
    expect(userKeyFilter('u:alice', 'alice')).toEqual({ key: 'user', value: 'alice' });
    expect(userKeyFilter('d:42', 'Laptop')).toEqual({ key: 'device', value: '42', name: 'Laptop' });
    expect(userKeyFilter('ip:10.0.0.1', '10.0.0.1')).toEqual({ key: 'client_ip', value: '10.0.0.1' });
    expect(userKeyFilter('d:x', 'x')).toBeNull();
  });

  it('reads the filters back from the address, names for ids, and drops an id that is not a number', () => {
    const p = new URLSearchParams('domain=ads.example&category=12&category_name=Gambling&device=x&user=alice');
    const filters = readDrillFilters(p);
    expect(filters).toEqual([
      { key: 'domain', value: 'ads.example', label: 'ads.example' },
      { key: 'category', value: '12', label: 'Gambling' },
      { key: 'user', value: 'alice', label: 'alice' },
    ]);
    expect(drillQuery(filters)).toEqual({ domain: 'ads.example', category: 12, user: 'alice' });
  });
});
