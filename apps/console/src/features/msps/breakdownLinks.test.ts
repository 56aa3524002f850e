import { describe, expect, it } from 'vitest';
import {
  breakdownLink,
  customerHistoryLink,
  MSP_BREAKDOWN_PATH,
  readBreakdownState,
  SYSTEM_BREAKDOWN_PATH,
  topEntryBreakdownLink,
} from './breakdownLinks.ts';

describe('the breakdown links of the MSP and system dashboards (issue 29 drill-down)', () => {
  it("writes a top entry's domain or category, action and period into the address; a users entry has none", () => {
    const entry = { action: 'blocked', period: '7days', name: 'ads.example' } as const;
    expect(topEntryBreakdownLink(MSP_BREAKDOWN_PATH, { ...entry, dim: 'domains', key: 'ads.example' })).toBe(
      '/msp/overview/breakdown?domain=ads.example&action=blocked&period=7days',
    );
    expect(
      topEntryBreakdownLink(SYSTEM_BREAKDOWN_PATH, {
        dim: 'categories',
        action: 'allowed',
        period: 'today',
        key: '12',
        name: 'Gambling & betting',
      }),
    ).toBe('/system/overview/breakdown?category=12&category_name=Gambling+%26+betting&action=allowed');
    expect(topEntryBreakdownLink(MSP_BREAKDOWN_PATH, { ...entry, dim: 'users', key: 'u:alice' })).toBeNull();
    expect(topEntryBreakdownLink(MSP_BREAKDOWN_PATH, { ...entry, dim: 'categories', key: 'x' })).toBeNull();
  });

  it('reads the state back, defaults for unknown values, null without a domain or a whole-number category', () => {
    const link = breakdownLink(MSP_BREAKDOWN_PATH, {
      target: { kind: 'category', id: 7, name: 'Social' },
      action: 'blocked',
      period: '30days',
    });
    const state = readBreakdownState(new URL(link, 'http://x').searchParams);
    expect(state).toEqual({ target: { kind: 'category', id: 7, name: 'Social' }, action: 'blocked', period: '30days' });
    expect(readBreakdownState(new URLSearchParams('domain=News.Example&action=denied&period=year'))).toEqual({
      target: { kind: 'domain', domain: 'news.example' },
      action: 'all',
      period: 'today',
    });
    expect(readBreakdownState(new URLSearchParams('category=abc'))).toBeNull();
    expect(readBreakdownState(new URLSearchParams('category=0'))).toBeNull();
    expect(readBreakdownState(new URLSearchParams(''))).toBeNull();
  });

  it("links a customer's row to its history with the same filters", () => {
    expect(
      customerHistoryLink({ target: { kind: 'domain', domain: 'news.example' }, action: 'allowed', period: '7days' }),
    ).toBe('/customer/reporting/history_reports?action=allowed&period=7days&domain=news.example');
    expect(
      customerHistoryLink({ target: { kind: 'category', id: 7, name: 'Social' }, action: 'all', period: 'today' }),
    ).toBe('/customer/reporting/history_reports?category=7&category_name=Social');
  });
});
