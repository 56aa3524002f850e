import { createContext, useContext } from 'react';
import type { ApiClient } from './client.ts';

/** The API client of the running app (created once in `main.tsx`). */
export const ApiClientContext = createContext<ApiClient | null>(null);

/** The API client; throws outside the app's providers. */
export function useApi(): ApiClient {
  const api = useContext(ApiClientContext);
  if (!api) throw new Error('useApi() outside ApiClientContext');
  return api;
}
