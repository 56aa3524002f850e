import { describe, expect, it } from 'vitest';
import { hasMessage, mergeMessages, messageKeys } from './messages.ts';

describe('merging the message trees of the console parts', () => {
  it('merges disjoint trees, nested namespaces included', () => {
    const merged = mergeMessages([
      { common: { save: 'Save' }, pages: { login: 'Log in' } },
      { pages: { policies: 'Policies' }, policies: { new: 'New policy' } },
    ]);
    expect(merged).toEqual({
      common: { save: 'Save' },
      pages: { login: 'Log in', policies: 'Policies' },
      policies: { new: 'New policy' },
    });
    expect(messageKeys(merged)).toEqual(['common.save', 'pages.login', 'pages.policies', 'policies.new']);
  });

  it('refuses a key defined twice, or as a string and a subtree, naming it', () => {
    expect(() => mergeMessages([{ pages: { login: 'Log in' } }, { pages: { login: 'Sign in' } }])).toThrow(
      'The message key pages.login is defined twice',
    );
    expect(() => mergeMessages([{ nav: { tools: 'Tools' } }, { nav: { tools: { title: 'Tools' } } }])).toThrow(
      'The message key nav.tools is defined twice',
    );
  });

  it('does not change its inputs', () => {
    const a = { pages: { login: 'Log in' } };
    mergeMessages([a, { pages: { logout: 'Log out' } }]);
    expect(a).toEqual({ pages: { login: 'Log in' } });
  });

  it('finds strings and subtrees by dotted key', () => {
    const tree = { locations: { types: { staticip: 'Static IP' } } };
    expect(hasMessage(tree, 'locations.types.staticip')).toBe(true);
    expect(hasMessage(tree, 'locations.types')).toBe(false);
    expect(hasMessage(tree, 'locations.types', true)).toBe(true);
    expect(hasMessage(tree, 'locations.types.staticip.x')).toBe(false);
  });
});
