import { MantineProvider } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import type { i18n } from 'i18next';
import { renderToString } from 'react-dom/server';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import { ApiCallError } from '../../api/client.ts';
import { ENGLISH, loadFeatureTranslation } from '../../app/messages.ts';
import type { ListState } from '../../components/DataTable.tsx';
import { createI18n } from '../../i18n/index.ts';
import { type HistorySortKey, HistoryTable } from './HistoryTable.tsx';
import { isQueryTimeout } from './timeout.tsx';

const SERVER_TEXT =
  'The search took too long and was stopped. Narrow it: a shorter period, a more specific search text, or sort by time.';
const timeout = new ApiCallError('http', SERVER_TEXT, { status: 503, code: 'ERR_QUERY_TIMEOUT' });

/** The history table's visible text for a search that failed with `error`, in `instance`'s language. */
function text(instance: i18n, error: Error): string {
  const query = { isError: true, isPending: false, error, refetch: () => undefined } as unknown as UseQueryResult<{
    total: number;
    data: [];
  }>;
  return renderToString(
    <MantineProvider>
      <I18nextProvider i18n={instance}>
        <HistoryTable query={query} list={{} as ListState<HistorySortKey>} />
      </I18nextProvider>
    </MantineProvider>,
  )
    .replace(/<style[^>]*>[^<]*<\/style>/g, '')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/&#x27;/g, "'")
    .trim();
}

describe('a history search the server stopped at its time bound (503 ERR_QUERY_TIMEOUT)', () => {
  it('is recognised by its code, not its status or text', () => {
    expect(isQueryTimeout(timeout)).toBe(true);
    expect(isQueryTimeout(new ApiCallError('http', SERVER_TEXT, { status: 503, code: 'ERR_UNAVAILABLE' }))).toBe(false);
    expect(isQueryTimeout(new Error(SERVER_TEXT))).toBe(false);
  });

  it('shows what happened and how to narrow the search, in English and French, with a retry', async () => {
    const instance = createI18n(ENGLISH, loadFeatureTranslation);
    expect(text(instance, timeout)).toBe(
      "The search took too long It was stopped at the server's time limit, so that it does not slow down everyone else. Narrow it: a shorter period, a more specific search text, or sort by time. Retry",
    );
    await instance.changeLanguage('fr');
    expect(text(instance, timeout)).toBe(
      'La recherche a pris trop de temps Elle a été arrêtée à la limite de temps du serveur, pour ne pas ralentir les autres utilisateurs. Affinez-la : une période plus courte, un texte de recherche plus précis, ou un tri par heure. Réessayer',
    );
  });
});
