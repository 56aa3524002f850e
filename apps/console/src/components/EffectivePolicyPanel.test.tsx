import type { EffectivePolicy } from '@cordon/shared';
import { MantineProvider } from '@mantine/core';
import type { i18n } from 'i18next';
import { renderToString } from 'react-dom/server';
import { I18nextProvider } from 'react-i18next';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { ENGLISH, loadFeatureTranslation } from '../app/messages.ts';
import { createI18n } from '../i18n/index.ts';
import { EffectiveChain } from './EffectivePolicyPanel.tsx';

/** The case (issue 29): a device inheriting its user's group, as the API answers it. */
const GROUP_CASE: EffectivePolicy = {
  policy: { id: 7, name: 'Travel' },
  device: { id: 3, name: 'laptop' },
  user: { id: 5, name: 'alice' },
  chain: [
    {
      source: 'device',
      id: 3,
      name: 'laptop',
      mode: 'default',
      rank: null,
      policy: null,
      outcome: 'choice',
      applied: false,
    },
    {
      source: 'device_configuration',
      id: null,
      name: null,
      mode: 'group',
      rank: null,
      policy: null,
      outcome: 'choice',
      applied: false,
    },
    {
      source: 'user',
      id: 5,
      name: 'alice',
      mode: null,
      rank: null,
      policy: null,
      outcome: 'no_policy',
      applied: false,
    },
    {
      source: 'group',
      id: 9,
      name: 'Travellers',
      mode: null,
      rank: 1,
      policy: { id: 7, name: 'Travel' },
      outcome: 'chosen',
      applied: true,
    },
  ],
};

function render(instance: i18n, answer: EffectivePolicy): { text: string; html: string } {
  const html = renderToString(
    <MantineProvider>
      <I18nextProvider i18n={instance}>
        <MemoryRouter>
          <EffectiveChain answer={answer} heading={instance.t('effectivePolicy.inForce')} />
        </MemoryRouter>
      </I18nextProvider>
    </MantineProvider>,
  ).replace(/<style[^>]*>[^<]*<\/style>/g, '');
  const text = html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&#x27;/g, "'")
    .replace(/\s+/g, ' ')
    .replace(/ ([:)])/g, '$1')
    .replace(/\( /g, '(')
    .trim();
  return { text, html };
}

describe('the "Policy in force" chain (issue 29 "Why was this blocked / allowed?")', () => {
  it('says each step in words, in English and French, and links the policies, the user and the group', async () => {
    const instance = createI18n(ENGLISH, loadFeatureTranslation);
    const en = render(instance, GROUP_CASE);
    expect(en.text).toBe(
      "In force: Travel Device laptop: inherits the default policy (groups are not used) Device configuration: follows its user's policy or group, else the default policy User alice: no policy of its own Group Travellers (rank 1): chooses → Travel In force",
    );
    expect(en.html).toContain('href="/customer/content_filtering/policies/7"');
    expect(en.html).toContain('href="/customer/environment/users/5"');
    expect(en.html).toContain('href="/customer/environment/groups/9"');
    expect(en.html).toContain('href="/customer/environment/devices/3"');
    await instance.changeLanguage('fr');
    expect(render(instance, GROUP_CASE).text).toBe(
      'Appliquée: Travel Appareil laptop: hérite de la politique par défaut (les groupes ne comptent pas) Configuration des appareils: suit la politique ou le groupe de son utilisateur, sinon la politique par défaut Utilisateur alice: aucune politique propre Groupe Travellers (rang 1): choisit → Travel Appliquée',
    );
  });
});
