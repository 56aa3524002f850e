import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../api/client.ts';
import { ENGLISH, loadFeatureTranslation } from '../../app/messages.ts';
import { createI18n } from '../../i18n/index.ts';
import { addGlobalEntry, enforceTwoFactor } from './customerStatusActions.ts';

/** A client over a fake fetch answering `status` + `body`, recording each request sent. */
function fakeClient(status: number, body: unknown) {
  const sent: { url: string; method: string; body: unknown }[] = [];
  const client = createApiClient({
    getToken: () => 'tok',
    onOutcome: () => {},
    fetchImpl: async (input, init) => {
      sent.push({ url: String(input), method: String(init?.method), body: JSON.parse(String(init?.body)) });
      return new Response(JSON.stringify(body), { status });
    },
  });
  return { client, sent };
}

const ENTRY = {
  id: 5,
  domain: 'malware.example',
  object: 'block',
  include_subdomains: true,
  comment: '',
  log_requests: true,
  policyid: null,
  policyname: null,
  user_id: null,
  msp_id: 7,
  created_at: '2026-11-27T20:00:00.000Z',
  updated_at: '2026-11-27T20:00:00.000Z',
};

describe('the MSP-wide actions of the customer list (issue 29)', () => {
  it("adds a global entry to the MSP's own global list, subdomains included", async () => {
    const { client, sent } = fakeClient(201, ENTRY);
    await expect(addGlobalEntry(client, 7, 'block', 'malware.example')).resolves.toMatchObject({ id: 5 });
    expect(sent).toEqual([
      {
        url: '/restapi/global/domains/block?msp_id=7',
        method: 'POST',
        body: { domain: 'malware.example', include_subdomains: true, comment: '', log_requests: true },
      },
    ]);
    const allow = fakeClient(201, { ...ENTRY, object: 'allow' });
    await addGlobalEntry(allow.client, 9, 'allow', 'partner.example');
    expect(allow.sent[0]?.url).toBe('/restapi/global/domains/allow?msp_id=9');
  });

  it('enforces 2FA for the whole MSP (the API has no per-customer switch)', async () => {
    const { client, sent } = fakeClient(200, { enforce_twofa: true });
    await expect(enforceTwoFactor(client, 7)).resolves.toEqual({ enforce_twofa: true });
    expect(sent).toEqual([
      { url: '/restapi/auth/msp/7/two-factor-auth/enforce', method: 'PUT', body: { enforce: true } },
    ]);
  });

  it('says in both languages that both actions reach every customer, and what 2FA enforcement does', async () => {
    const i18n = createI18n(ENGLISH, loadFeatureTranslation);
    expect(i18n.t('customerStatus.globalEntry.scope')).toMatch(/every customer of this MSP, not only the selected/);
    expect(i18n.t('customerStatus.enforce2fa.text')).toMatch(/set it up at their next login/);
    await i18n.changeLanguage('fr');
    expect(i18n.t('customerStatus.globalEntry.scope')).toMatch(/tous les clients de ce MSP/);
    expect(i18n.t('customerStatus.enforce2fa.text')).toMatch(/prochaine connexion/);
  });
});
