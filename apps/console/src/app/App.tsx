import { createTheme, MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { i18n } from 'i18next';
import { useState } from 'react';
import { I18nextProvider } from 'react-i18next';
import { RouterProvider } from 'react-router/dom';
import { ApiCallError, type ApiClient } from '../api/client.ts';
import { ApiClientContext } from '../api/context.ts';
import { SessionStoreContext } from '../session/context.ts';
import type { SessionStore } from '../session/session.ts';
import type { AppRouter } from './router.tsx';

const theme = createTheme({ primaryColor: 'blue', defaultRadius: 'sm' });

/** Server-state defaults: HTTP errors are final (the global handler already reacted); network failures retry once. */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: (failures, error) => error instanceof ApiCallError && error.kind === 'network' && failures < 1,
        refetchOnWindowFocus: false,
        staleTime: 10_000,
      },
      mutations: { retry: false },
    },
  });
}

/** The app's providers (Mantine, notifications, TanStack Query, i18n, session, API client, router). */
export function App(props: { api: ApiClient; session: SessionStore; router: AppRouter; i18n: i18n }) {
  const [queryClient] = useState(createQueryClient);
  return (
    <MantineProvider theme={theme}>
      <Notifications position="bottom-right" />
      <I18nextProvider i18n={props.i18n}>
        <QueryClientProvider client={queryClient}>
          <SessionStoreContext.Provider value={props.session}>
            <ApiClientContext.Provider value={props.api}>
              <RouterProvider router={props.router} />
            </ApiClientContext.Provider>
          </SessionStoreContext.Provider>
        </QueryClientProvider>
      </I18nextProvider>
    </MantineProvider>
  );
}
