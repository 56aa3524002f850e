import { MantineProvider } from '@mantine/core';
import { renderToString } from 'react-dom/server';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import { ENGLISH, loadFeatureTranslation } from '../../app/messages.ts';
import { createI18n } from '../../i18n/index.ts';
import { DeviceUsersBody } from './DeviceUsersPanel.tsx';

const BOUND = {
  users: [
    { id: 4, name: 'teacher', source: 'admin' as const, created_at: '2026-11-27T10:00:00.000Z' },
    { id: 7, name: 'pupil1', source: 'agent' as const, created_at: '2026-11-27T11:00:00.000Z' },
  ],
  user_reports_refused: 3,
  agent_user_cap: 10,
};

/** The device page's users panel as the console renders it, in `lang`. */
async function render(lang = 'en', bound = BOUND) {
  const i18n = createI18n(ENGLISH, loadFeatureTranslation);
  await i18n.changeLanguage(lang);
  return renderToString(
    <MantineProvider>
      <I18nextProvider i18n={i18n}>
        <DeviceUsersBody
          bound={bound}
          choices={[
            { id: 4, name: 'teacher' },
            { id: 9, name: 'alice' },
          ]}
          save={async () => undefined}
          pending={false}
        />
      </I18nextProvider>
    </MantineProvider>,
  );
}

/** Binding users to a device (docs/security.md "Identity claims"; docs/api.md "Device users"). */
describe('DeviceUsersBody', () => {
  it('lists the bound users with who bound them, a labelled user choice, the cap and the refused reports', async () => {
    const html = await render();
    expect(html).toContain('Users this device may assert');
    expect(html).toContain('teacher (bound by an admin)');
    expect(html).toContain('pupil1 (reported by the agent)');
    expect(html).toContain('at most 10 per device');
    expect(html).toContain('User reports refused: 3');
    // The choice has its label element pointing at it.
    const label = /<label[^>]*for="([^"]+)"[^>]*>Users/.exec(html);
    expect(label).not.toBeNull();
    expect(html).toContain(`id="${label![1]}"`);
  });

  it('says when no user is bound, and speaks French', async () => {
    expect(await render('en', { ...BOUND, users: [] })).toContain('No user yet.');
    const fr = await render('fr');
    expect(fr).toContain('Utilisateurs que cet appareil peut déclarer');
    expect(fr).toContain('teacher (lié par un administrateur)');
    expect(fr).toContain('Déclarations d’utilisateur refusées : 3');
  });
});
