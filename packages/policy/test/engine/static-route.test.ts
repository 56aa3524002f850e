import { describe, expect, it } from 'vitest';
import { DomainIndex } from '../../src/domain-index.ts';
import { type Decision, staticRouteDecision } from '../../src/engine/index.ts';
import { staticRouteRule } from '../../src/engine/rules/static-route.ts';
import { snapshot, who } from './helpers.ts';

describe('static-route rule (step 2)', () => {
  const routes = new DomainIndex<Decision>();
  routes.add('corp.example', staticRouteDecision('10.0.0.53:53'), true);
  routes.add('lab.corp.example', staticRouteDecision('10.0.9.53:53'), true);
  const snap = snapshot({ staticRoutes: new Map([[1, routes]]) });

  it('forwards a name under a route suffix, the longest suffix winning', () => {
    expect(staticRouteRule.decide(snap, who(null), 'www.corp.example', 0)).toEqual({
      action: 'allowed',
      reason: 'static_route',
      categories: [],
      forwardTo: '10.0.0.53:53',
    });
    expect(staticRouteRule.decide(snap, who(null), 'x.lab.corp.example', 0)?.forwardTo).toBe('10.0.9.53:53');
  });

  it('passes for other names, other customers and without routes', () => {
    expect(staticRouteRule.decide(snap, who(null), 'corp.example.org', 0)).toBeNull();
    expect(staticRouteRule.decide(snap, { ...who(null), customerId: 2 }, 'www.corp.example', 0)).toBeNull();
    expect(staticRouteRule.decide(snapshot(), who(null), 'www.corp.example', 0)).toBeNull();
  });
});
