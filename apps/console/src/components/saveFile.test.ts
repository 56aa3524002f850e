import { afterEach, describe, expect, it, vi } from 'vitest';
import { saveFile } from './saveFile.ts';

/** A document with just what saveFile uses, recording the link it builds. */
function fakeDocument() {
  const events: string[] = [];
  const link = {
    href: '',
    download: '',
    rel: '',
    click: () => events.push(`click ${link.download}`),
    remove: () => events.push('remove'),
  };
  const doc = {
    createElement: (tag: string) => {
      events.push(`create ${tag}`);
      return link;
    },
    body: { appendChild: () => events.push('append') },
  } as unknown as Document;
  return { doc, link, events };
}

describe('saveFile', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('clicks a temporary noopener link named for the file, then revokes its object URL', async () => {
    vi.useFakeTimers();
    const blobs: Blob[] = [];
    vi.spyOn(URL, 'createObjectURL').mockImplementation((b) => {
      blobs.push(b as Blob);
      return 'blob:cordon/1';
    });
    const revoke = vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {});
    const { doc, link, events } = fakeDocument();

    saveFile('a,b\r\n', 'audit-05-01-2026.csv', 'text/csv', doc);

    expect(events).toEqual(['create a', 'append', 'click audit-05-01-2026.csv', 'remove']);
    expect(link).toMatchObject({ href: 'blob:cordon/1', download: 'audit-05-01-2026.csv', rel: 'noopener' });
    expect(blobs[0]?.type).toBe('text/csv');
    expect(await blobs[0]?.text()).toBe('a,b\r\n');
    expect(revoke).not.toHaveBeenCalled();
    vi.runAllTimers();
    expect(revoke).toHaveBeenCalledWith('blob:cordon/1');
  });
});
