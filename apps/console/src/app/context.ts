import { Role } from '@cordon/shared';
import { createContext, useContext, useSyncExternalStore } from 'react';
import type { ApiClient } from '../api/client.ts';
import type { SessionState, SessionStore } from './auth/session.ts';

/** The API client of the running app (created once in `main.tsx`). */
export const ApiClientContext = createContext<ApiClient | null>(null);
/** The session store of the running app (created once in `main.tsx`). */
export const SessionStoreContext = createContext<SessionStore | null>(null);

/** The API client; throws outside the app's providers. */
export function useApi(): ApiClient {
  const api = useContext(ApiClientContext);
  if (!api) throw new Error('useApi() outside ApiClientContext');
  return api;
}

/** The session store, for actions (login, logout, selections). */
export function useSessionStore(): SessionStore {
  const store = useContext(SessionStoreContext);
  if (!store) throw new Error('useSessionStore() outside SessionStoreContext');
  return store;
}

/** The current session snapshot; re-renders when it changes. */
export function useSession(): SessionState {
  const store = useSessionStore();
  return useSyncExternalStore(store.subscribe, store.getState);
}

/**
 * The MSP the console acts on (spec §4): the selected MSP for a system admin (role 1), the token's
 * `msp_id` for an MSP admin (role 3); null otherwise.
 */
export function mspScope(session: SessionState): number | null {
  const role = session.claims?.vue_role;
  if (role === Role.System) return session.selectedMsp;
  if (role === Role.Msp) return session.claims?.msp_id ?? null;
  return null;
}

/**
 * The customer the console acts on: the selected customer for roles 1 and 3, the token's
 * `user_id` for a customer (role 4); null otherwise.
 */
export function customerScope(session: SessionState): number | null {
  const role = session.claims?.vue_role;
  if (role === Role.System || role === Role.Msp) return session.selectedCustomer;
  if (role === Role.Customer) return session.claims?.user_id ?? null;
  return null;
}

/** The MSP in scope; the route guard guarantees it inside the MSP area. */
export function useMspId(): number {
  const id = mspScope(useSession());
  if (id === null) throw new Error('No MSP in scope');
  return id;
}

/** The customer in scope; the route guard guarantees it inside the customer area. */
export function useCustomerId(): number {
  const id = customerScope(useSession());
  if (id === null) throw new Error('No customer in scope');
  return id;
}
