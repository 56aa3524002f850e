import { localStorageColorSchemeManager, MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { i18n } from 'i18next';
import { useMemo, useState } from 'react';
import { I18nextProvider } from 'react-i18next';
import { RouterProvider } from 'react-router/dom';
import { ApiCallError, type ApiClient } from '../api/client.ts';
import { ApiClientContext } from '../api/context.ts';
import { SessionStoreContext } from '../session/context.ts';
import type { SessionStore } from '../session/session.ts';
import type { AppRouter } from './router.tsx';
import { Toasts } from './Toasts.tsx';
import { createConsoleTheme, cssVariablesResolver } from './theme.ts';

/**
 * The colour scheme (light, dark or auto = the system's) is remembered in the browser as
 * `cordon-color-scheme` (spec-notes §3 browser-stored preferences), chosen in the header.
 */
const colorSchemeManager = localStorageColorSchemeManager({ key: 'cordon-color-scheme' });

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
  const lang = props.i18n.language;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the close label changes with the language
  const theme = useMemo(
    () => createConsoleTheme(props.i18n.t('common.close'), props.i18n.t('common.clear')),
    [props.i18n, lang],
  );
  return (
    <MantineProvider
      theme={theme}
      cssVariablesResolver={cssVariablesResolver}
      colorSchemeManager={colorSchemeManager}
      defaultColorScheme="auto"
    >
      <Toasts />
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
