import { describe, expect, it } from 'vitest';
import { readRecent, rememberRecent, switcherData } from './TenantSwitcher.tsx';

function memory(): Pick<Storage, 'getItem' | 'setItem'> {
  const m = new Map<string, string>();
  return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, v) };
}

const labels = { recent: 'Recent', all: 'All' };
const rows = [
  { id: 1, name: 'Alpha' },
  { id: 2, name: 'Bravo' },
  { id: 3, name: 'Charlie' },
];

describe('tenant switchers (issue 29: every tenant when reopened, recent first)', () => {
  it('remembers the last five choices, newest first, without duplicates', () => {
    const s = memory();
    for (const id of [1, 2, 3, 4, 5, 6, 2]) rememberRecent(s, 'k', { id, name: `T${id}` });
    expect(readRecent(s, 'k').map((r) => r.id)).toEqual([2, 6, 5, 4, 3]);
    s.setItem('bad', '{not json');
    expect(readRecent(s, 'bad')).toEqual([]);
  });

  it('lists every tenant, the recent ones first, and the selection even when the page lacks it', () => {
    const data = switcherData(rows, { id: 9, name: 'Zulu' }, [{ id: 3, name: 'Charlie' }], false, labels);
    expect(data).toEqual([
      { group: 'Recent', items: [{ value: '3', label: 'Charlie' }] },
      {
        group: 'All',
        items: [
          { value: '9', label: 'Zulu' },
          { value: '1', label: 'Alpha' },
          { value: '2', label: 'Bravo' },
        ],
      },
    ]);
  });

  it("shows the server's matches alone while searching, and a flat list with no recent choice", () => {
    expect(switcherData(rows.slice(0, 1), undefined, [{ id: 3, name: 'Charlie' }], true, labels)).toEqual([
      { value: '1', label: 'Alpha' },
    ]);
    expect(switcherData(rows, undefined, [{ id: 42, name: 'Gone' }], false, labels)).toHaveLength(3);
  });
});
