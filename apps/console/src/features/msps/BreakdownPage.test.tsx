import { Endpoints, type StatsBreakdown } from '@cordon/shared';
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderToString } from 'react-dom/server';
import { I18nextProvider } from 'react-i18next';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../api/client.ts';
import { ApiClientContext } from '../../api/context.ts';
import { endpointQueryKey } from '../../api/queryKeys.ts';
import { ENGLISH, loadFeatureTranslation } from '../../app/messages.ts';
import { SubtitleProvider } from '../../components/PageHeader.tsx';
import { createI18n } from '../../i18n/index.ts';
import { SessionStoreContext } from '../../session/context.ts';
import { createSessionStore } from '../../session/session.ts';
import { SystemBreakdownPage } from './BreakdownPage.tsx';

/** A Storage in memory, for the session store. */
function memoryStorage(): Storage {
  const m = new Map<string, string>();
  return {
    get length() {
      return m.size;
    },
    clear: () => m.clear(),
    getItem: (k) => m.get(k) ?? null,
    key: (i) => [...m.keys()][i] ?? null,
    removeItem: (k) => void m.delete(k),
    setItem: (k, v) => void m.set(k, v),
  };
}

/** The query the page sends for `?domain=news.example&action=allowed` (page 1, most first). */
const QUERY = {
  domain: 'news.example',
  action: 'allowed',
  date: 'today',
  limit: 25,
  offset: 0,
  sortkey: 'count',
  sortdir: 'desc',
} as const;

/**
 * The system breakdown page at `address` as the console renders it, in `lang`, with `answer` as the
 * API's (undefined: still loading).
 */
async function render(address: string, answer: StatsBreakdown | undefined, lang = 'en'): Promise<string> {
  const i18n = createI18n(ENGLISH, loadFeatureTranslation);
  await i18n.changeLanguage(lang);
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  if (answer) queryClient.setQueryData(endpointQueryKey(Endpoints.stats.systemBreakdown, { query: QUERY }), answer);
  // Never called: the answer is in the cache, or the page is still loading.
  const api = { call: () => new Promise(() => undefined) } as unknown as ApiClient;
  const router = createMemoryRouter(
    [{ path: '/system/overview/breakdown', element: <SystemBreakdownPage />, handle: { title: 'pages.breakdown' } }],
    { initialEntries: [address] },
  );
  return renderToString(
    <MantineProvider>
      <I18nextProvider i18n={i18n}>
        <QueryClientProvider client={queryClient}>
          <ApiClientContext.Provider value={api}>
            <SessionStoreContext.Provider value={createSessionStore(memoryStorage())}>
              <SubtitleProvider>
                <RouterProvider router={router} />
              </SubtitleProvider>
            </SessionStoreContext.Provider>
          </ApiClientContext.Provider>
        </QueryClientProvider>
      </I18nextProvider>
    </MantineProvider>,
  );
}

const ANSWER: StatsBreakdown = {
  data: [
    { id: 2, name: 'Drill MSP', count: 1500 },
    { id: 5, name: 'Other MSP', count: 500 },
  ],
  total: 2,
  count: 2000,
};

/** The system dashboard's breakdown page (issue 29 drill-down). */
describe('the breakdown page', () => {
  it('lists who made the requests with counts, shares and labelled links to the next level', async () => {
    const html = await render('/system/overview/breakdown?domain=news.example&action=allowed', ANSWER);
    expect(html).toContain('Who made these requests');
    expect(html).toContain('2,000 requests from 2 MSPs');
    expect(html).toContain('1,500');
    expect(html).toContain('75%');
    expect(html).toContain('aria-label="Drill MSP: open its customers for these requests"');
    expect(html).toContain('href="/msp/overview/breakdown?domain=news.example&amp;action=allowed"');
    expect(html).toContain('Periods are UTC days, as on the system dashboard.');
  });

  it('speaks French, with French numbers', async () => {
    const html = await render('/system/overview/breakdown?domain=news.example&action=allowed', ANSWER, 'fr');
    expect(html).toContain('Qui a fait ces requêtes');
    expect(html).toMatch(/2\s000 requêtes de 2 MSP/);
    expect(html).toContain('Drill MSP : ouvrir ses clients pour ces requêtes');
    expect(html).toContain('Retour à la vue d&#x27;ensemble');
  });

  it('shows loading, an empty period, and what is missing from the address', async () => {
    expect(await render('/system/overview/breakdown?domain=news.example&action=allowed', undefined)).toContain(
      'aria-label="Loading',
    );
    const empty = await render('/system/overview/breakdown?domain=news.example&action=allowed', {
      data: [],
      total: 0,
      count: 0,
    });
    expect(empty).toContain('No MSP made these requests in this period.');
    const missing = await render('/system/overview/breakdown?category=abc', undefined, 'fr');
    expect(missing).toContain('Rien à détailler');
  });
});
