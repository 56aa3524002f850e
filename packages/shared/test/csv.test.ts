import { describe, expect, it } from 'vitest';
import { csvField, csvText, ddmmyyyy } from '../src/csv.ts';

describe('csvField (RFC 4180)', () => {
  it('leaves plain text and numbers as they are, null and undefined empty', () => {
    expect(csvField('a.example')).toBe('a.example');
    expect(csvField(42)).toBe('42');
    expect(csvField(true)).toBe('true');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
  });
  it('quotes a field holding a comma, a quote or a line break, doubling quotes', () => {
    expect(csvField('a, b')).toBe('"a, b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\r\nlines')).toBe('"two\r\nlines"');
    expect(csvField('one\nline')).toBe('"one\nline"');
  });
  it('neutralises a leading formula character with a quote mark', () => {
    for (const c of ['=', '+', '-', '@', '\t']) expect(csvField(`${c}1`)).toBe(`'${c}1`);
    expect(csvField('\r1')).toBe(`"'\r1"`);
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField('a=b')).toBe('a=b');
  });
});

describe('csvText', () => {
  it('writes the header and one CRLF-ended line per row', () => {
    expect(
      csvText(
        ['name', 'count'],
        [
          ['Ads, trackers', 3],
          ['=cmd', null],
        ],
      ),
    ).toBe('name,count\r\n"Ads, trackers",3\r\n\'=cmd,\r\n');
  });
  it('writes only the header for no rows', () => {
    expect(csvText(['a', 'b'], [])).toBe('a,b\r\n');
  });
});

describe('ddmmyyyy', () => {
  it('pads day and month, in local time by default', () => {
    expect(ddmmyyyy(new Date(2026, 0, 5))).toBe('05-01-2026');
  });
  it('takes the UTC date when asked', () => {
    expect(ddmmyyyy(new Date(Date.UTC(2025, 0, 31, 23, 30)), 'utc')).toBe('31-01-2025');
    expect(ddmmyyyy(new Date(Date.UTC(2025, 11, 1, 0, 5)), 'utc')).toBe('01-12-2025');
  });
});
