import { MantineProvider } from '@mantine/core';
import { renderToString } from 'react-dom/server';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import { ENGLISH, loadFeatureTranslation } from '../../app/messages.ts';
import { createI18n } from '../../i18n/index.ts';
import { RateLimitBody } from './LocationDetailPage.tsx';

/** The location page's rate-limit panel as the console renders it, in `lang`. */
async function render(type: 'staticip' | 'dynamicip' | 'virtual', qps: number | null, lang = 'en') {
  const i18n = createI18n(ENGLISH, loadFeatureTranslation);
  await i18n.changeLanguage(lang);
  return renderToString(
    <MantineProvider>
      <I18nextProvider i18n={i18n}>
        <RateLimitBody type={type} qps={qps} />
      </I18nextProvider>
    </MantineProvider>,
  );
}

/** The per-location query rate limit admins see (docs/operations.md "Response-rate limiting"). */
describe('RateLimitBody', () => {
  it('shows the limit of a location claimed by address, off, or none for a keyed one', async () => {
    expect(await render('staticip', 5000)).toContain('5,000 DNS queries per second over UDP for this location');
    expect(await render('dynamicip', null)).toContain('No query rate limit applies to this location.');
    expect(await render('virtual', 5000)).toContain('reached by its key');
  });

  it('speaks French', async () => {
    const fr = await render('staticip', 5000, 'fr');
    expect(fr).toContain('Limite de débit des requêtes');
    expect(fr).toMatch(/5\s000 requêtes DNS par seconde/);
  });
});
