import { MantineProvider } from '@mantine/core';
import type { i18n } from 'i18next';
import { renderToString } from 'react-dom/server';
import { I18nextProvider } from 'react-i18next';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { ENGLISH, loadFeatureTranslation } from '../../app/messages.ts';
import { createI18n } from '../../i18n/index.ts';
import { ColorSchemePicker } from '../ColorSchemePicker.tsx';
import { StatsNumbers } from './StatsNumbers.tsx';

const STATS = { requests: 150, unique_domains: 12, allowed: 140, blocked: 10 };

function html(instance: i18n, node: React.ReactNode): string {
  return renderToString(
    <MantineProvider>
      <I18nextProvider i18n={instance}>
        <MemoryRouter>{node}</MemoryRouter>
      </I18nextProvider>
    </MantineProvider>,
  ).replace(/<style[^>]*>[^<]*<\/style>/g, '');
}

const text = (h: string) =>
  h
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;|\u202f|\u00a0/g, ' ')
    .replace(/\s+/g, ' ');

describe('StatsNumbers (issue 29 visual identity)', () => {
  const node = (
    <StatsNumbers
      stats={STATS}
      trends={{
        requests: { current: 150, previous: 100, ratio: 0.5 },
        blocked: { current: 10, previous: 0, ratio: null },
      }}
      series={{ requests: [1, 5, 2], allowed: [1, 4, 2], blocked: [0, 1, 0], unique_domains: [3, 3, 3] }}
    />
  );

  it('shows the change against the day before in words, and decorative sparklines', async () => {
    const instance = createI18n(ENGLISH, loadFeatureTranslation);
    const h = html(instance, node);
    expect(text(h)).toContain('+50% vs the day before');
    expect(text(h)).toContain('Day before: 0');
    // Requests, allowed and blocked have a series; unique domains has none per hour.
    expect(h.match(/data-testid="stat-[a-z-]+-spark"/g)).toEqual([
      'data-testid="stat-requests-spark"',
      'data-testid="stat-allowed-spark"',
      'data-testid="stat-blocked-spark"',
    ]);
    for (const svg of h.match(/<svg[^>]*-spark"[^>]*>/g) ?? []) expect(svg).toContain('aria-hidden="true"');
  });

  it('says it in French', async () => {
    const instance = createI18n(ENGLISH, loadFeatureTranslation);
    await instance.changeLanguage('fr');
    expect(text(html(instance, node))).toContain('+50 % par rapport à la veille');
    expect(text(html(instance, node))).toContain('Veille : 0');
  });
});

describe('ColorSchemePicker', () => {
  it('is a labelled select of light, dark and the system scheme, in English and French', async () => {
    const instance = createI18n(ENGLISH, loadFeatureTranslation);
    const en = html(instance, <ColorSchemePicker />);
    expect(en).toContain('aria-label="Colour scheme"');
    expect(en).toContain('value="Light"');
    await instance.changeLanguage('fr');
    const fr = html(instance, <ColorSchemePicker />);
    expect(fr).toContain('aria-label="Thème de couleurs"');
    expect(fr).toContain('value="Clair"');
  });
});
