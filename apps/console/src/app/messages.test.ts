import { describe, expect, it } from 'vitest';
import { hasMessage, messageKeys } from '../i18n/messages.ts';
import { FEATURES } from './features.ts';
import { MENU_SKELETON } from './menuSkeleton.ts';
import { ENGLISH } from './messages.ts';

/** Every source file of the console but the tests, as text, by path relative to this folder. */
const SOURCES: Record<string, string> = import.meta.glob(
  ['../**/*.ts', '../**/*.tsx', '!../**/*.test.ts', '!../**/*.test.tsx'],
  { query: '?raw', import: 'default', eager: true },
);

const en = ENGLISH;
const namespaces = new Set(Object.keys(en));

describe('the merged English strings (docs/architecture.md "Console": every string goes through i18n)', () => {
  it('hold every key the source uses: t() calls, template prefixes and key literals', () => {
    const missing: string[] = [];
    expect(Object.keys(SOURCES)).toContain('../features/policies/PolicyDetailPage.tsx');
    for (const [where, text] of Object.entries(SOURCES)) {
      for (const [, key] of text.matchAll(/\bt\(\s*'([^']+)'/g)) {
        if (!hasMessage(en, key as string)) missing.push(`${where}: t('${key}')`);
      }
      for (const [, prefix] of text.matchAll(/\bt\(\s*`([^`$]*)\.\$\{/g)) {
        if (!hasMessage(en, prefix as string, true)) missing.push(`${where}: t(\`${prefix}.\${…}\`)`);
      }
      // Keys passed around before translation (labelKey, titleKey, label): any 'ns.key' literal of a known namespace.
      for (const [, key] of text.matchAll(/'([a-z][A-Za-z]*(?:\.[A-Za-z0-9]+)+)'/g)) {
        const ns = (key as string).split('.')[0] as string;
        if (namespaces.has(ns) && !hasMessage(en, key as string)) missing.push(`${where}: '${key}'`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('hold every page title and menu label of the manifests and the menu skeleton', () => {
    const keys = [
      ...FEATURES.flatMap((f) => f.routes.flatMap((r) => [r.titleKey, ...(r.menu ? [r.menu.labelKey] : [])])),
      ...MENU_SKELETON.map((e) => e.labelKey),
    ];
    expect(keys.filter((k) => !hasMessage(en, k))).toEqual([]);
  });

  it('keep each feature in its own strings: a feature file only adds keys', () => {
    const total = FEATURES.reduce((n, f) => n + messageKeys(f.messages.en).length, 0);
    expect(messageKeys(en).length).toBeGreaterThan(total);
    for (const f of FEATURES) for (const key of messageKeys(f.messages.en)) expect(hasMessage(en, key)).toBe(true);
  });
});
