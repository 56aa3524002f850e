import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../src/compiled-policy.ts';
import { DomainIndex } from '../../src/domain-index.ts';
import { type Decision, evaluate, RULES, staticRouteDecision } from '../../src/engine/index.ts';
import { index, list, lists, snapshot, who } from './helpers.ts';

describe('RULES, the decision order (docs/architecture.md "Decision order")', () => {
  it('is pinned', () => {
    expect(RULES.map((r) => r.name)).toEqual([
      'bypass',
      'static-route',
      'policy-allow',
      'policy-block',
      'msp-allow',
      'msp-block',
      'system-allow',
      'system-block',
      'category',
      'unclassified',
    ]);
  });

  // One name every rule matches: each step, removed in turn, hands the decision to the next.
  const name = 'x.all.example';
  const routes = new DomainIndex<Decision>();
  routes.add('all.example', staticRouteDecision('10.0.0.53:53'), true);
  const policy = (allow: boolean, block: boolean) =>
    compilePolicy(1, 1, [20], false, {
      ...(allow ? { allow: list('*.all.example') } : {}),
      ...(block ? { block: list('*.all.example') } : {}),
    });
  const mspBoth = lists(['*.all.example'], ['*.all.example']);

  it('gives the first matching rule the decision, then the next when it is gone', () => {
    const full = snapshot({
      categories: index([['all.example', [20]]]),
      staticRoutes: new Map([[1, routes]]),
      mspLists: new Map([[7, mspBoth]]),
      systemLists: mspBoth,
    });
    const reason = (s: typeof full, p: ReturnType<typeof policy>) =>
      evaluate(s, who(p), { qname: name, clientIp: '192.0.2.1' }, 0).reason;
    const bypassed = { ...full, bypasses: new Map([['192.0.2.1', { customerId: 1, expiresAt: 1 }]]) };
    expect(reason(bypassed, policy(true, true))).toBe('bypass');
    expect(reason(full, policy(true, true))).toBe('static_route');
    const noRoutes = { ...full, staticRoutes: new Map() };
    expect(reason(noRoutes, policy(true, true))).toBe('policy_allow');
    expect(reason(noRoutes, policy(false, true))).toBe('policy_block');
    expect(reason(noRoutes, policy(false, false))).toBe('msp_allow');
    const mspBlockOnly = { ...noRoutes, mspLists: new Map([[7, lists([], ['*.all.example'])]]) };
    expect(reason(mspBlockOnly, policy(false, false))).toBe('msp_block');
    const noMsp = { ...noRoutes, mspLists: new Map() };
    expect(reason(noMsp, policy(false, false))).toBe('global_allow');
    expect(reason({ ...noMsp, systemLists: lists([], ['*.all.example']) }, policy(false, false))).toBe('global_block');
    const noLists = snapshot({ categories: full.categories });
    expect(reason(noLists, policy(false, false))).toBe('category');
    expect(evaluate(snapshot(), who(policy(false, false)), { qname: name }, 0).reason).toBe('unclassified');
    expect(evaluate(snapshot(), who(null), { qname: name }, 0)).toEqual({
      action: 'allowed',
      reason: 'default',
      categories: [],
    });
  });

  it('lets allow lists beat categories and explicit blocks beat allowed categories', () => {
    const snap = snapshot({ categories: index([['all.example', [39]]]) });
    expect(evaluate(snap, who(policy(false, true)), { qname: name }, 0).action).toBe('blocked');
    const cat = snapshot({ categories: index([['all.example', [20]]]) });
    expect(evaluate(cat, who(policy(true, false)), { qname: name }, 0).action).toBe('allowed');
  });
});
