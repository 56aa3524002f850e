import { ErrorTexts } from '@cordon/shared';
import { describe, expect, it } from 'vitest';
import { ApiCallError } from '../../api/client.ts';
import {
  entryPath,
  fileNameFromDisposition,
  importErrorText,
  isDomainListKind,
  listFullLimit,
  targetList,
} from './logic.ts';

describe('the domain-list view (spec-notes §7 Domains)', () => {
  it('takes the export file name from Content-Disposition as the server sends it (RFC 6266)', () => {
    expect(fileNameFromDisposition('attachment; filename="domains-block-31-01-2025.csv"')).toBe(
      'domains-block-31-01-2025.csv',
    );
    expect(fileNameFromDisposition('attachment; filename=domains-all-01-02-2025.csv')).toBe(
      'domains-all-01-02-2025.csv',
    );
    // filename* wins over filename; a directory part is dropped.
    expect(fileNameFromDisposition(`attachment; filename="x.csv"; filename*=UTF-8''li%C3%A9s.csv`)).toBe('liés.csv');
    expect(fileNameFromDisposition('attachment; filename="../../etc/passwd"')).toBe('passwd');
    expect(fileNameFromDisposition('attachment')).toBeNull();
    expect(fileNameFromDisposition(null)).toBeNull();
  });

  it("shows the server's line-numbered CSV message, else its error text, else the spec's upload text", () => {
    const line = 'Line 3: Please specify domain or partial domain only, URLs are not permitted.';
    expect(importErrorText(new ApiCallError('http', 'Validation failed', { status: 400, fields: { csv: line } }))).toBe(
      line,
    );
    expect(importErrorText(new ApiCallError('http', 'Client error: Resource not found.', { status: 404 }))).toBe(
      'Client error: Resource not found.',
    );
    expect(importErrorText(new ApiCallError('network', ErrorTexts.connectionLost))).toBe(ErrorTexts.uploadFailed);
    expect(importErrorText(new Error('boom'))).toBe(ErrorTexts.uploadFailed);
  });

  it('reads the limit of a full list from ERR_LIST_FULL (shown translated), null for any other error', () => {
    const full = (text: string) => new ApiCallError('http', text, { status: 422, code: 'ERR_LIST_FULL' });
    expect(listFullLimit(full('This list is full: it may hold at most 100,000 entries.'))).toBe(100_000);
    expect(listFullLimit(full('This list is full.'))).toBe(0);
    expect(listFullLimit(new ApiCallError('http', 'x', { status: 409, code: 'ERR_CONFLICT' }))).toBeNull();
    expect(listFullLimit(new Error('boom'))).toBeNull();
  });

  it('adds and imports into the tab\'s list, "All" into the block list', () => {
    expect(targetList('allow')).toBe('allow');
    expect(targetList('block')).toBe('block');
    expect(targetList('all')).toBe('block');
    expect(['allow', 'block', 'all', 'x', null].map(isDomainListKind)).toEqual([true, true, true, false, false]);
  });

  it("links an entry to its page: a policy's carries the policy, a global one its area", () => {
    expect(entryPath({ kind: 'policy', policyId: 7, userId: 3 }, 42, 'customer')).toBe(
      '/customer/content_filtering/domains/42?policy=7',
    );
    expect(entryPath({ kind: 'global', mspId: 2 }, 5, 'msp')).toBe('/msp/global_settings/global_domains/5');
    expect(entryPath({ kind: 'global' }, 5, 'system')).toBe('/system/global_settings/global_domains/5');
  });
});
