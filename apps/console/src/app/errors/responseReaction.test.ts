import { ErrorTexts } from '@cordon/shared';
import { describe, expect, it } from 'vitest';
import { decideReaction, parentPath } from './responseReaction.ts';

const http = (status: number, text = '') => ({ type: 'http' as const, status, text });
const page = '/customer/content_filtering/policies/12';

describe('global response handling (spec-notes §8)', () => {
  it('logs out on 401 except on the root path', () => {
    expect(decideReaction(http(401, 'Unauthorized'), page)).toEqual({ kind: 'logout' });
    expect(decideReaction(http(401, ErrorTexts.badCredentials), '/')).toEqual({ kind: 'none' });
  });

  it('toasts the server text for 400, 409, 422 and 5xx', () => {
    for (const status of [400, 409, 422, 500, 503]) {
      expect(decideReaction(http(status, 'Name already taken'), page)).toEqual({
        kind: 'toast',
        message: 'Name already taken',
      });
    }
    expect(decideReaction(http(502), page)).toEqual({ kind: 'toast', message: ErrorTexts.serverError });
  });

  it('is silent for the second-factor texts', () => {
    for (const text of [
      '2FA is enabled',
      'Incorrect code entered',
      'Code required',
      'Invalid code',
      '2FA is enforced',
    ]) {
      expect(decideReaction(http(422, text), '/')).toEqual({ kind: 'none' });
      expect(decideReaction(http(400, `Error: ${text}`), page)).toEqual({ kind: 'none' });
    }
  });

  it('uses the catalogue texts for 403, 405, 408 and 429', () => {
    expect(decideReaction(http(403, 'nope'), page)).toEqual({ kind: 'toast', message: 'Client error: Forbidden.' });
    expect(decideReaction(http(405), page)).toEqual({ kind: 'toast', message: 'Client error: Method not allowed.' });
    expect(decideReaction(http(408), page)).toEqual({ kind: 'toast', message: 'Client error: Request timed out.' });
    expect(decideReaction(http(429), page)).toEqual({ kind: 'toast', message: 'Client error: Too many requests.' });
  });

  it('navigates to the parent path on 404', () => {
    expect(decideReaction(http(404), page)).toEqual({ kind: 'navigate', to: '/customer/content_filtering/policies' });
  });

  it('opens the connection alert on network failure and closes it on success', () => {
    expect(decideReaction({ type: 'network' }, page)).toEqual({ kind: 'connectionLost' });
    expect(decideReaction({ type: 'success' }, page)).toEqual({ kind: 'connectionRestored' });
  });

  it('does nothing for requests cancelled locally', () => {
    expect(decideReaction({ type: 'cancelled' }, page)).toEqual({ kind: 'none' });
  });
});

describe('parentPath', () => {
  it('drops the last segment and skips redirect-only area roots', () => {
    expect(parentPath('/a/b/c')).toBe('/a/b');
    expect(parentPath('/customer/overview')).toBe('/');
    expect(parentPath('/')).toBe('/');
  });

  it('leaves a 400 that names its fields to the form (shown once, under the fields), toasts one that does not', () => {
    expect(
      decideReaction({ type: 'http', status: 400, text: 'This is a required field.', fields: true }, '/x'),
    ).toEqual({
      kind: 'none',
    });
    expect(decideReaction({ type: 'http', status: 400, text: 'Bad batch.' }, '/x')).toEqual({
      kind: 'toast',
      message: 'Bad batch.',
    });
    expect(decideReaction({ type: 'http', status: 409, text: 'Taken.', fields: true }, '/x')).toEqual({
      kind: 'toast',
      message: 'Taken.',
    });
  });
});
