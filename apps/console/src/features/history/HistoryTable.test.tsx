import { MantineProvider } from '@mantine/core';
import type { i18n } from 'i18next';
import { renderToString } from 'react-dom/server';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import { ENGLISH, loadFeatureTranslation } from '../../app/messages.ts';
import { createI18n } from '../../i18n/index.ts';
import { HistoryAction } from './HistoryTable.tsx';

type Entry = { action: string; matched_name: string | null };

/** `<HistoryAction entry={entry} />` as the console renders it in `instance`'s language, as HTML. */
const html = (instance: i18n, entry: Entry): string =>
  renderToString(
    <MantineProvider>
      <I18nextProvider i18n={instance}>
        <HistoryAction entry={entry} />
      </I18nextProvider>
    </MantineProvider>,
  );

/** The visible text of {@link html} (Mantine's style element left out). */
function text(instance: i18n, entry: Entry): string {
  return html(instance, entry)
    .replace(/<style[^>]*>[^<]*<\/style>/g, '')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

describe("the history's action cell", () => {
  it('names the alias of the answer whose decision blocked the query (issue 24), in English and French', async () => {
    const instance = createI18n(ENGLISH, loadFeatureTranslation);
    const cloaked = { action: 'blocked', matched_name: 'cname-target.example' };
    expect(text(instance, cloaked)).toBe('Blocked via cname-target.example');
    expect(html(instance, cloaked)).toContain(
      'title="Decided on cname-target.example, a name the answer leads to (CNAME, DNAME, HTTPS or SVCB target)"',
    );
    // Decided on the qname: the action alone.
    expect(text(instance, { action: 'blocked', matched_name: null })).toBe('Blocked');
    expect(text(instance, { action: 'bypassed', matched_name: null })).toBe('Bypassed');

    await instance.changeLanguage('fr');
    expect(text(instance, cloaked)).toBe('Bloqué via cname-target.example');
    expect(text(instance, { action: 'allowed', matched_name: null })).toBe('Autorisé');
    expect(html(instance, cloaked)).toContain(
      'title="Décidé sur cname-target.example, un nom vers lequel mène la réponse (cible CNAME, DNAME, HTTPS ou SVCB)"',
    );
  });
});
