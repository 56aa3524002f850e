import type { ApiToken } from '@cordon/shared';
import { MantineProvider } from '@mantine/core';
import type { ReactNode } from 'react';
import { renderToString } from 'react-dom/server';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import { ENGLISH, loadFeatureTranslation } from '../../app/messages.ts';
import { createI18n } from '../../i18n/index.ts';
import { ApiTokensTable, CreatedSecret, CreateTokenFields, EMPTY_DRAFT } from './ApiTokensPage.tsx';

const NOW = Date.parse('2026-11-27T12:00:00.000Z');
const TOKENS: ApiToken[] = [
  {
    id: 3,
    name: 'Provisioning',
    prefix: 'Ab12Cd34Ef56',
    access: 'read-write',
    created_at: '2026-11-20T09:30:00.000Z',
    expires_at: '2027-02-18T09:30:00.000Z',
    last_used_at: '2026-11-26T23:15:00.000Z',
    last_used_ip: '198.51.100.7',
    revoked_at: null,
  },
  {
    id: 2,
    name: 'Old report',
    prefix: 'Zz99Yy88Xx77',
    access: 'read',
    created_at: '2026-01-02T10:00:00.000Z',
    expires_at: null,
    last_used_at: null,
    last_used_ip: null,
    revoked_at: '2026-03-01T10:00:00.000Z',
  },
  {
    id: 1,
    name: 'Trial',
    prefix: 'Qq11Ww22Ee33',
    access: 'read',
    created_at: '2026-01-01T10:00:00.000Z',
    expires_at: '2026-02-01T10:00:00.000Z',
    last_used_at: null,
    last_used_ip: null,
    revoked_at: null,
  },
];

/** `node` rendered as the console renders it, in `lang`. */
async function render(node: ReactNode, lang = 'en'): Promise<string> {
  const i18n = createI18n(ENGLISH, loadFeatureTranslation);
  await i18n.changeLanguage(lang);
  return renderToString(
    <MantineProvider>
      <I18nextProvider i18n={i18n}>{node}</I18nextProvider>
    </MantineProvider>,
  );
}

/** The API tokens page (issue 26; docs/api.md "API tokens"). */
describe('API tokens page', () => {
  it('lists name, access, creation, last use with address and expiry in the user time zone, and each status', async () => {
    const html = await render(
      <ApiTokensTable
        tokens={TOKENS}
        lang="en"
        timeZone="Pacific/Auckland"
        now={NOW}
        actions={(tok) => <button type="button">{`revoke ${tok.name}`}</button>}
      />,
    );
    expect(html).toContain('Provisioning');
    expect(html).toContain('cdn_Ab12Cd34Ef56_…');
    expect(html).toContain('Read and write');
    // 23:15 UTC on the 26th is the 27th in Auckland (UTC+13 in November).
    expect(html).toContain('Nov 27, 2026, 12:15 PM from 198.51.100.7');
    expect(html).toContain('Never');
    expect(html).toContain('Active');
    expect(html).toContain('Revoked');
    expect(html).toContain('Expired');
    // Only the active token can be revoked.
    expect(html).toContain('revoke Provisioning');
    expect(html).not.toContain('revoke Old report');
    expect(html).not.toContain('revoke Trial');
  });

  it('says when there is no token, in English and French', async () => {
    const empty = <ApiTokensTable tokens={[]} lang="en" timeZone="UTC" now={NOW} />;
    expect(await render(empty)).toContain('No API token yet.');
    expect(await render(empty, 'fr')).toContain('Aucun jeton d’API pour l’instant.');
  });

  it('shows the secret once with a copy button and the warning', async () => {
    const created = { ...TOKENS[0]!, secret: 'cdn_Ab12Cd34Ef56_secretsecretsecretsecretsecretsecretsecret1' };
    const html = await render(<CreatedSecret created={created} onDone={() => undefined} />);
    expect(html).toContain(created.secret);
    expect(html).toContain('Copy token');
    expect(html).toContain('it is shown only once');
    const fr = await render(<CreatedSecret created={created} onDone={() => undefined} />, 'fr');
    expect(fr).toContain('Copier le jeton');
    expect(fr).toContain('il n’est affiché qu’une fois');
  });

  it('asks for the password, and the 2FA code only when 2FA is on, each field labelled', async () => {
    const fields = (twoFactor: boolean, errors: Record<string, string> = {}) => (
      <CreateTokenFields draft={EMPTY_DRAFT} onChange={() => undefined} twoFactor={twoFactor} errors={errors} />
    );
    const off = await render(fields(false));
    for (const label of ['Name', 'Access', 'Expires after (days)', 'Current password']) {
      const m = new RegExp(`<label[^>]*for="([^"]+)"[^>]*>${label.replace(/[()]/g, '\\$&')}`).exec(off);
      expect(m, label).not.toBeNull();
      expect(off).toContain(`id="${m![1]}"`);
    }
    expect(off).not.toContain('Two-factor code');
    const on = await render(fields(true, { current_password: 'The current password is not correct.' }));
    expect(on).toContain('Two-factor code');
    expect(on).toContain('The current password is not correct.');
    expect(await render(fields(true), 'fr')).toContain('Code à deux facteurs');
  });
});
