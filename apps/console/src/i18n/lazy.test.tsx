import type { i18n } from 'i18next';
import { renderToString } from 'react-dom/server';
import { I18nextProvider, useTranslation } from 'react-i18next';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ENGLISH, loadFeatureTranslation } from '../app/messages.ts';
import { createI18n, type TranslationLoader } from './index.ts';
import type { MessageTree } from './messages.ts';

/** Every source file of the console but the tests, as text, by path relative to this folder. */
const SOURCES: Record<string, string> = import.meta.glob(
  ['../**/*.ts', '../**/*.tsx', '!../**/*.test.ts', '!../**/*.test.tsx'],
  { query: '?raw', import: 'default', eager: true },
);

/** A page fragment of three strings: the shared ones and a feature's (auth) with a placeholder. */
function Strings() {
  const { t } = useTranslation();
  return <p>{`${t('app.logout')}|${t('common.save')}|${t('login.heading', { title: 'Cordon' })}`}</p>;
}

/** The fragment rendered with `instance`, as the console renders it (react-i18next's provider). */
const render = (instance: i18n) =>
  renderToString(
    <I18nextProvider i18n={instance}>
      <Strings />
    </I18nextProvider>,
  );

/** A loader whose answer the test releases: `loads` records the languages asked for. */
function deferredLoader() {
  const loads: string[] = [];
  let release: (tree: MessageTree) => void = () => {};
  const load: TranslationLoader = (lang) => {
    loads.push(lang);
    return new Promise((resolve) => {
      release = resolve;
    });
  };
  return { load, loads, release: (tree: MessageTree) => release(tree) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('French loaded on demand (bench/README.md "Console first load")', () => {
  it('starts in English without fetching French', () => {
    const load = vi.fn(loadFeatureTranslation);
    const instance = createI18n(ENGLISH, load);
    expect(instance.language).toBe('en');
    expect(render(instance)).toContain('Log out|Save|Log in to Cordon');
    expect(instance.hasResourceBundle('fr', 'translation')).toBe(false);
    expect(load).not.toHaveBeenCalled();
  });

  it('fetches French once when chosen, then renders French; back to English without a fetch', async () => {
    const load = vi.fn(loadFeatureTranslation);
    const instance = createI18n(ENGLISH, load);
    await instance.changeLanguage('fr');
    expect(load.mock.calls).toEqual([['fr']]);
    expect(instance.language).toBe('fr');
    expect(render(instance)).toContain('Se déconnecter|Enregistrer|Se connecter à Cordon');

    await instance.changeLanguage('en');
    expect(render(instance)).toContain('Log out|Save|Log in to Cordon');
    await instance.changeLanguage('fr');
    expect(render(instance)).toContain('Se déconnecter|Enregistrer|Se connecter à Cordon');
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('keeps the page in English, never keys, until the French strings are in, then switches at once', async () => {
    const { load, loads, release } = deferredLoader();
    const instance = createI18n(ENGLISH, load);
    const switched = instance.changeLanguage('fr');
    expect(loads).toEqual(['fr']);
    // Still fetching: the language has not changed and every string is English.
    expect(instance.language).toBe('en');
    expect(render(instance)).toContain('Log out|Save|Log in to Cordon');

    release(await loadFeatureTranslation('fr'));
    await switched;
    expect(instance.language).toBe('fr');
    expect(render(instance)).toContain('Se déconnecter|Enregistrer|Se connecter à Cordon');
  });

  it('lets the last choice win when English is chosen back while French is still loading', async () => {
    const { load, release } = deferredLoader();
    const instance = createI18n(ENGLISH, load);
    const toFrench = instance.changeLanguage('fr');
    await instance.changeLanguage('en');
    release(await loadFeatureTranslation('fr'));
    await toFrench;
    expect(instance.language).toBe('en');
    expect(render(instance)).toContain('Log out|Save|Log in to Cordon');
  });

  it('retries a failed fetch twice, then shows English strings rather than keys', async () => {
    vi.useFakeTimers();
    const load = vi.fn<TranslationLoader>(() =>
      Promise.reject(new Error('Failed to fetch dynamically imported module')),
    );
    const instance = createI18n(ENGLISH, load);
    const switched = instance.changeLanguage('fr');
    await vi.runAllTimersAsync();
    await switched;
    expect(load).toHaveBeenCalledTimes(3);
    expect(render(instance)).toContain('Log out|Save|Log in to Cordon');
  });

  it('is never imported statically: every French file is a dynamic import of its own folder', () => {
    const staticFrench = Object.entries(SOURCES)
      .filter(([, text]) => /^\s*import\s[^;]*['"][^'"]*\bfr\.json['"]/m.test(text))
      .map(([path]) => path);
    expect(staticFrench).toEqual([]);
    const manifests = Object.entries(SOURCES).filter(([path]) => /^\.\.\/features\/[^/]+\/manifest\.ts$/.test(path));
    expect(manifests.length).toBeGreaterThan(20);
    // The category names' French is packages/shared's (the one source the server reads too), also a dynamic import.
    const lazy = manifests.filter(
      ([, text]) =>
        text.includes("translations: { fr: () => import('./i18n/fr.json') }") ||
        text.includes("translations: { fr: () => import('@cordon/shared/i18n/fr.json') }"),
    );
    expect(lazy.map(([path]) => path)).toEqual(manifests.map(([path]) => path));
    expect(SOURCES['./index.ts']).toContain("fr: () => import('./fr.json')");
  });
});
