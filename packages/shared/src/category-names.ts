/**
 * Category names in the languages of the console (issue 29 "French complete, category names
 * included"), the one source both the console and the server read (docs/decisions.md "Category names
 * in the reader's language"). English is each category's `name` (categories.ts); French is
 * `i18n/fr.json` (`categoryNames.<id>`), a JSON file so the console loads it with its other French
 * strings, in the French chunk. The console imports that JSON file only (dynamically), never this
 * module: a static import here would put the French names in its first load.
 */
import { categoryById } from './categories.ts';
import fr from './i18n/fr.json' with { type: 'json' };

/** The languages category names exist in: the console's (docs/decisions.md "Category names in the reader's language"). */
export const NAME_LANGUAGES = ['en', 'fr'] as const;
export type NameLanguage = (typeof NAME_LANGUAGES)[number];

/** The French name of each category, by id (`'20'` → "Jeux d’argent"). */
export const FRENCH_CATEGORY_NAMES: Readonly<Record<string, string>> = fr.categoryNames;

/**
 * The language of names for a stored or requested language tag: an admin's profile `lang`
 * (migration 0012, '' = not chosen) or an Accept-Language entry. `fr`, `fr-CA` → `fr`; '', null,
 * unknown → `en` (English is the console's fallback, docs/decisions.md "Category names in the reader's language").
 */
export function nameLanguage(tag: string | null | undefined): NameLanguage {
  const base = (tag ?? '').trim().toLowerCase().split(/[-_]/)[0];
  return (NAME_LANGUAGES as readonly string[]).includes(base ?? '') ? (base as NameLanguage) : 'en';
}

/**
 * The name of category `id` in `lang`: the French name in French when there is one, else the
 * English name of the taxonomy, else `fallback` (a name stored elsewhere, e.g. a report row's), else
 * `#id`.
 * @param id the category id (0–54, docs/architecture.md "Categories")
 */
export function categoryNameIn(lang: NameLanguage, id: number, fallback?: string): string {
  if (lang === 'fr') {
    const name = FRENCH_CATEGORY_NAMES[String(id)];
    if (name) return name;
  }
  return categoryById(id)?.name ?? fallback ?? `#${id}`;
}

/**
 * The first language of names an `Accept-Language` header asks for (RFC 9110 §12.5.4: tags by
 * descending `q`, ties in header order; `q=0` refuses a tag): `fr-CA,en;q=0.8` → `fr`. Null when the
 * header is absent or names none of {@link NAME_LANGUAGES} (`*` included), so the caller falls back.
 */
export function acceptedNameLanguage(header: string | null | undefined): NameLanguage | null {
  if (!header) return null;
  const ranked = header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
      return { base: tag.trim().toLowerCase().split(/[-_]/)[0] ?? '', q: q === undefined ? 1 : Number(q), index };
    })
    .filter((e) => e.q > 0 && (NAME_LANGUAGES as readonly string[]).includes(e.base))
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return (ranked[0]?.base as NameLanguage | undefined) ?? null;
}
