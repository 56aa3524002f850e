import {
  type CSSVariablesResolver,
  createTheme,
  type FileInputProps,
  MantineProvider,
  type MantineThemeComponent,
  type ModalProps,
  type MultiSelectProps,
  type NotificationProps,
  type SelectProps,
} from '@mantine/core';
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

/**
 * One component's default props in the theme. The theme names the component rather than importing
 * it for `Component.extend` (an identity function): importing MultiSelect, FileInput or Modal put
 * them, with their combobox and modal code, in the first load of every page (bench/README.md
 * "Console first load"). `P` checks the props against the component's own.
 */
function withDefaultProps<P>(defaultProps: Partial<P>): MantineThemeComponent {
  return { defaultProps };
}

/**
 * The console's theme. Accessibility (WCAG 2.1 AA, 1.4.3 contrast and 4.1.2 names): the primary blue
 * is shade 8 (4.9:1 on white, white text on it likewise) instead of shade 6 (3.55:1); every dialog's
 * and toast's close button is named `closeLabel`, and every clearable input's clear button `clearLabel`,
 * in the user's language.
 */
export function createConsoleTheme(closeLabel: string, clearLabel = 'Clear') {
  return createTheme({
    primaryColor: 'blue',
    primaryShade: { light: 8, dark: 8 },
    defaultRadius: 'sm',
    components: {
      Modal: withDefaultProps<ModalProps>({ closeButtonProps: { 'aria-label': closeLabel } }),
      Notification: withDefaultProps<NotificationProps>({ closeButtonProps: { 'aria-label': closeLabel } }),
      FileInput: withDefaultProps<FileInputProps>({ clearButtonProps: { 'aria-label': clearLabel } }),
      Select: withDefaultProps<SelectProps>({ clearButtonProps: { 'aria-label': clearLabel } }),
      MultiSelect: withDefaultProps<MultiSelectProps>({ clearButtonProps: { 'aria-label': clearLabel } }),
    },
  });
}

/** The palette colours whose `light` variant (status labels, light buttons, alerts) gets shade-9 text. */
const LIGHT_VARIANT_COLORS = [
  'dark',
  'gray',
  'red',
  'pink',
  'grape',
  'violet',
  'indigo',
  'blue',
  'cyan',
  'teal',
  'green',
  'lime',
  'yellow',
  'orange',
] as const;

/** Colours whose shade 9 is still under 4.5:1 on their shade 0 (green 4.1, orange 4.1): their light text is dark. */
const PALE_SHADE_9: ReadonlySet<string> = new Set(['green', 'lime', 'yellow', 'orange']);

/**
 * The "dimmed" grey text is gray 7 (7.5:1 on white) instead of gray 6 (3.32:1), field errors red 9
 * (5.5:1) instead of red 6 (3.3:1), and the colours of the light variants (status labels, light
 * buttons, alerts) are drawn on the colour's shade 0 with its shade 9 text (teal 6 on a 10 % teal wash was 2.9:1; teal 9 on teal 0 is 4.7:1), WCAG 1.4.3.
 */
const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    // Field errors and required marks: red 9 (5.5:1 on white) instead of red 6 (3.3:1).
    '--mantine-color-error': 'var(--mantine-color-red-9)',
    ...Object.fromEntries(
      LIGHT_VARIANT_COLORS.flatMap((c) => [
        [`--mantine-color-${c}-light`, `var(--mantine-color-${c}-0)`],
        [`--mantine-color-${c}-light-hover`, `var(--mantine-color-${c}-1)`],
        [
          `--mantine-color-${c}-light-color`,
          PALE_SHADE_9.has(c) ? 'var(--mantine-color-dark-7)' : `var(--mantine-color-${c}-9)`,
        ],
      ]),
    ),
  },
  dark: {},
});

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
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver}>
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
