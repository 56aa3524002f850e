import { describe, expect, it } from 'vitest';
import { CategoryIndexBuilder } from '../src/category-index.ts';
import { withOverrides } from '../src/overrides.ts';

describe('category overrides over the index (approved recategorisations)', () => {
  const builder = new CategoryIndexBuilder();
  builder.add('casino.example', [20]);
  builder.add('news.example', [33]);
  builder.add('deep.sub.news.example', [6]);
  const index = builder.build();

  it('is the index itself when nothing is overridden', () => {
    expect(withOverrides(index, new Map())).toBe(index);
  });

  it('lets the most specific overridden suffix decide alone, for the name and its subdomains', () => {
    const lookup = withOverrides(index, new Map([['news.example', [12]]]));
    expect(lookup.categoriesOf('news.example')).toEqual([12]);
    expect(lookup.categoriesOf('www.news.example')).toEqual([12]);
    // The override wins over a more specific feed entry below it.
    expect(lookup.categoriesOf('deep.sub.news.example')).toEqual([12]);
    // Other names keep the index's answer.
    expect(lookup.categoriesOf('www.casino.example')).toEqual([20]);
    expect(lookup.categoriesOf('unknown.example')).toEqual([]);
    const narrower = withOverrides(
      index,
      new Map([
        ['sub.news.example', [5]],
        ['news.example', [12]],
      ]),
    );
    expect(narrower.categoriesOf('deep.sub.news.example')).toEqual([5]);
    expect(narrower.categoriesOf('other.news.example')).toEqual([12]);
  });
});
