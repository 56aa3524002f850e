import type { TokenClaims } from '@cordon/shared';
import { describe, expect, it } from 'vitest';
import { guardDecision, rootDecision } from './routeGuard.ts';
import type { SessionState } from './session.ts';

function session(role: TokenClaims['vue_role'] | null, extra: Partial<SessionState> = {}): SessionState {
  const claims: TokenClaims | null =
    role === null
      ? null
      : {
          sub: '1',
          name: 'A',
          email: 'a@example.com',
          account_name: 'Acme',
          '2fa_enabled': false,
          vue_role: role,
          msp_id: role === 3 ? 7 : null,
          is_default: false,
          user_id: role === 4 ? 42 : null,
          jti: 'j',
          iat: 0,
          exp: 0,
        };
  return { token: claims ? 't' : null, claims, selectedMsp: null, selectedCustomer: null, ui: {}, ...extra };
}

describe('route guard (spec-notes §2, §6)', () => {
  it('sends a logged-out visitor to the login page', () => {
    expect(guardDecision('customer', session(null))).toEqual({ kind: 'redirect', to: '/' });
    expect(rootDecision(session(null))).toEqual({ kind: 'login' });
  });

  it('sends roles the area does not allow to /403', () => {
    expect(guardDecision('system', session(3))).toEqual({ kind: 'redirect', to: '/403' });
    expect(guardDecision('msp', session(4))).toEqual({ kind: 'redirect', to: '/403' });
    expect(guardDecision('sales', session(4))).toEqual({ kind: 'redirect', to: '/403' });
    expect(guardDecision('system', session(2))).toEqual({ kind: 'redirect', to: '/403' });
  });

  it('lets each role into its own area', () => {
    expect(guardDecision('system', session(1))).toEqual({ kind: 'allow' });
    expect(guardDecision('sales', session(2))).toEqual({ kind: 'allow' });
    expect(guardDecision('msp', session(3))).toEqual({ kind: 'allow' });
    expect(guardDecision('customer', session(4))).toEqual({ kind: 'allow' });
    expect(guardDecision('profile', session(2))).toEqual({ kind: 'allow' });
  });

  it('makes the system admin pick an MSP and a customer first', () => {
    expect(guardDecision('msp', session(1))).toEqual({ kind: 'redirect', to: '/system/overview' });
    expect(guardDecision('msp', session(1, { selectedMsp: 5 }))).toEqual({ kind: 'allow' });
    expect(guardDecision('customer', session(1))).toEqual({ kind: 'redirect', to: '/system/overview' });
    expect(guardDecision('customer', session(1, { selectedMsp: 5 }))).toEqual({
      kind: 'redirect',
      to: '/msp/overview',
    });
    expect(guardDecision('customer', session(1, { selectedMsp: 5, selectedCustomer: 9 }))).toEqual({ kind: 'allow' });
    expect(guardDecision('customer', session(3))).toEqual({ kind: 'redirect', to: '/msp/overview' });
  });

  it('sends a logged-in user from / to the role home', () => {
    expect(rootDecision(session(1))).toEqual({ kind: 'redirect', to: '/system/overview' });
    expect(rootDecision(session(2))).toEqual({ kind: 'redirect', to: '/sales/msps' });
    expect(rootDecision(session(3))).toEqual({ kind: 'redirect', to: '/msp/overview' });
    expect(rootDecision(session(4))).toEqual({ kind: 'redirect', to: '/customer/overview' });
  });
});
