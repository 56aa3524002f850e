import { describe, expect, it } from 'vitest';
import { ENGLISH, loadFeatureTranslation } from '../app/messages.ts';
import { createI18n } from '../i18n/index.ts';
import { DELETE_KINDS } from './RowSelection.tsx';
import { NAMED_ITEMS, namedItems } from './SafeDeleteDialog.tsx';

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i + 1, name: `Item ${i + 1}` }));

describe('bulk delete confirmations name the items and what breaks (issue 29)', () => {
  it('names the first five selected items, then how many more', () => {
    expect(NAMED_ITEMS).toBe(5);
    expect(namedItems(items(3))).toEqual({ shown: items(3), more: 0 });
    const eight = namedItems(items(8));
    expect(eight.shown.map((i) => i.name)).toEqual(['Item 1', 'Item 2', 'Item 3', 'Item 4', 'Item 5']);
    expect(eight.more).toBe(3);
  });

  it('has, for every kind a list deletes, a sentence of what stops working in English and in French', async () => {
    const instance = createI18n(ENGLISH, loadFeatureTranslation);
    const english = DELETE_KINDS.map((k) => instance.t(`safeDelete.consequences.${k}`));
    // Every sentence is written (no key shown), and each kind has its own.
    expect(english.filter((text) => text.startsWith('safeDelete.'))).toEqual([]);
    expect(new Set(english).size).toBe(DELETE_KINDS.length);
    expect(instance.t('safeDelete.consequences.devices')).toContain('will no longer be identified by their key');
    expect(instance.t('safeDelete.more', { count: 3 })).toBe('and 3 more');
    await instance.changeLanguage('fr');
    const french = DELETE_KINDS.map((k) => instance.t(`safeDelete.consequences.${k}`));
    expect(DELETE_KINDS.filter((_, i) => french[i] === english[i])).toEqual([]);
    expect(instance.t('safeDelete.consequences.admins')).toBe(
      'Ces administrateurs ne pourront plus se connecter : leurs sessions et leurs jetons d’API cessent de fonctionner immédiatement.',
    );
    expect(instance.t('safeDelete.more', { count: 3 })).toBe('et 3 autres');
  });
});
