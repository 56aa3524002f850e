import { createContext, useContext, useSyncExternalStore } from 'react';
import { customerScope, mspScope } from './scope.ts';
import type { SessionState, SessionStore } from './session.ts';

/** The session store of the running app (created once in `main.tsx`). */
export const SessionStoreContext = createContext<SessionStore | null>(null);

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
