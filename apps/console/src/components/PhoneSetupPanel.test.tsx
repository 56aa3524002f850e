import { dotLabel } from '@cordon/shared';
import { MantineProvider } from '@mantine/core';
import { renderToString } from 'react-dom/server';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../api/client.ts';
import { ApiClientContext } from '../api/context.ts';
import { ENGLISH, loadFeatureTranslation } from '../app/messages.ts';
import { createI18n } from '../i18n/index.ts';
import { PhoneSetupBody } from './PhoneSetupPanel.tsx';

const KEY = 'Dev_Key-0123456789abcdefGHIJKLMN';

/** The panel's body as the console renders it, in `lang`, with these operator settings. */
async function render(settings: { doh_url: string | null; dot_hostname: string | null }, lang = 'en') {
  const i18n = createI18n(ENGLISH, loadFeatureTranslation);
  await i18n.changeLanguage(lang);
  return renderToString(
    <MantineProvider>
      <ApiClientContext.Provider value={{} as ApiClient}>
        <I18nextProvider i18n={i18n}>
          <PhoneSetupBody
            customerId={3}
            secretKey={KEY}
            subject={{ kind: 'device', deviceId: 9 }}
            settings={settings}
          />
        </I18nextProvider>
      </ApiClientContext.Provider>
    </MantineProvider>,
  );
}

/** Phone set-up on the device and location pages (docs/agent.md "Phones"). */
describe('PhoneSetupPanel', () => {
  it('shows the Android host name and the DoH URL as labelled fields, and the profile download button', async () => {
    const html = await render({ doh_url: 'https://dns.example.net', dot_hostname: 'dot.example.net' });
    expect(html).toContain(`value="${dotLabel(KEY)}.dot.example.net"`);
    expect(html).toContain(`value="https://dns.example.net/dns-query/${KEY}"`);
    expect(html).toContain('Android Private DNS host name');
    // Each field has its label element pointing at it.
    const ids = [...html.matchAll(/<label[^>]*for="([^"]+)"/g)].map((m) => m[1]);
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(html).toContain(`id="${id}"`);
    expect(html).toContain('aria-label="Copy Android Private DNS host name"');
    expect(html).toMatch(/<button[^>]*data-testid="phone-profile-download"/);
    expect(html).toContain('Download Apple profile (.mobileconfig)');
  });

  it('says what the operator has not configured, in French too', async () => {
    const en = await render({ doh_url: null, dot_hostname: null });
    expect(en).toContain('not configured by the service operator');
    expect(en).not.toContain('phone-profile-download');
    const fr = await render({ doh_url: 'https://dns.example.net', dot_hostname: null }, 'fr');
    expect(fr).toContain('non configuré par l&#x27;opérateur du service');
    expect(fr).toContain('Télécharger le profil Apple (.mobileconfig)');
  });
});
