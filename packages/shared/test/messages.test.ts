import { describe, expect, it } from 'vitest';
import { Texts } from '../src/messages.ts';
import { linkTokenSchema } from '../src/schemas/admin.ts';
import { cloudKeyCreateSchema } from '../src/schemas/cloudkey.ts';
import { feedUrlMessage } from '../src/schemas/feed.ts';
import { webhookUrlMessage } from '../src/schemas/webhooks.ts';

/** The first issue's message of a refused parse. */
function refusal(result: { success: boolean; error?: { issues: { message: string; path: PropertyKey[] }[] } }) {
  expect(result.success).toBe(false);
  return result.error?.issues[0];
}

describe('Texts: one home for the texts several modules answer with', () => {
  it('are distinct sentences', () => {
    const values = Object.values(Texts);
    expect(new Set(values).size).toBe(values.length);
    for (const v of values) expect(v).toMatch(/^[A-Z].*\.$/);
  });
  it('are what the shared schemas refuse with', () => {
    const window = refusal(
      cloudKeyCreateSchema.safeParse({
        key: 'Library pass',
        valid_from: '2026-02-01T00:00:00.000Z',
        valid_to: '2026-01-01T00:00:00.000Z',
      }),
    );
    expect(window?.message).toBe(Texts.validToAfterFrom);
    expect(window?.path).toEqual(['valid_to']);
    expect(refusal(linkTokenSchema.safeParse('short'))?.message).toBe(Texts.linkInvalid);
    expect(feedUrlMessage).toBe(Texts.httpsUrl);
    expect(webhookUrlMessage).toBe(Texts.httpsUrl);
  });
});
