import { describe, expect, it } from 'vitest';
import { ENGLISH, loadFeatureTranslation } from '../../app/messages.ts';
import { createI18n } from '../../i18n/index.ts';
import { type AuditPhraseEntry, type AuditT, describeAudit } from './auditPhrase.ts';

/** An audit row as core's mutate() writes it (docs/api.md "Audit log"): before/after are JSON text. */
function row(action: string, entity: string, before: unknown, after: unknown, entityId = 7): AuditPhraseEntry {
  return {
    action,
    entity,
    entity_id: entityId,
    before: before === null ? null : JSON.stringify(before),
    after: after === null ? null : JSON.stringify(after),
    admin_email: 'alice@example.test',
    api_token_name: null,
  };
}

async function translator(lang: 'en' | 'fr'): Promise<AuditT> {
  const i18n = createI18n(ENGLISH, loadFeatureTranslation);
  await i18n.changeLanguage(lang);
  return i18n.t.bind(i18n) as unknown as AuditT;
}

const policy = { id: 7, name: 'Students', filtering_level: 'moderate', allow_unclassified: true, safe_search: false };

describe('describeAudit (issue 29: the audit log in words)', () => {
  it('says what changed in a policy, categories by name, in English', async () => {
    const t = await translator('en');
    const say = (r: AuditPhraseEntry) => describeAudit(r, 'Alice', t);
    expect(
      say(
        row(
          'policy.categories.update',
          'policy',
          { name: 'Students', filtering_level: 'moderate', blocked: [1, 9] },
          { name: 'Students', filtering_level: 'custom', blocked: [1, 9, 20] },
        ),
      ),
    ).toBe('Alice changed policy “Students”: blocked Gambling; protection level Moderate (Enhanced) → Custom');
    expect(say(row('policy.categories.update', 'policy', { blocked: [20, 21, 39] }, { blocked: [21, 45] }))).toBe(
      'Alice changed policy #7: blocked Social Networking; allowed Gambling, News',
    );
    expect(say(row('policy.create', 'policy', null, { ...policy, blocked: [1] }))).toBe(
      'Alice created policy “Students”',
    );
    expect(say(row('policy.delete', 'policy', policy, null))).toBe('Alice deleted policy “Students”');
    expect(say(row('policy.update', 'policy', policy, { ...policy, name: 'Pupils', safe_search: true }))).toBe(
      'Alice changed policy “Pupils”: renamed to “Pupils”; turned on safe search',
    );
    expect(say(row('policy.update', 'policy', policy, policy))).toBe('Alice changed policy “Students”');
  });

  it('names other objects, says logins and 2FA in sentences, and falls back to the code', async () => {
    const t = await translator('en');
    const say = (r: AuditPhraseEntry) => describeAudit(r, 'Alice', t);
    // As customers.createCustomer writes it: the table's column names.
    expect(say(row('customer.create', 'customer', null, { account_name: 'Riverside Academy', msp_id: 9 }))).toBe(
      'Alice created customer “Riverside Academy”',
    );
    expect(
      say(
        row(
          'location.update',
          'location',
          { name: 'Main', timezone: 'UTC' },
          { name: 'Main', timezone: 'Europe/Paris' },
        ),
      ),
    ).toBe('Alice changed location “Main”: changed the time zone');
    expect(say(row('auth.login', 'admin', null, null))).toBe('Alice logged in');
    expect(say(row('admin.2fa_enable', 'admin', null, null))).toBe('Alice turned on two-factor authentication');
    expect(say(row('webhook.rotate_secret', 'webhook', null, { name: 'SIEM' }))).toBe(
      'Alice: webhook.rotate_secret on webhook “SIEM”',
    );
    const many = Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f'].map((k) => [k, 1]));
    const more = Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f'].map((k) => [k, 2]));
    expect(say(row('group.update', 'group', { name: 'Staff', ...many }, { name: 'Staff', ...more }))).toBe(
      'Alice changed group “Staff”: changed a; changed b; changed c; changed d; and 2 more changes',
    );
    // Unreadable stored JSON still gives a sentence.
    expect(describeAudit({ ...row('domain.delete', 'domain', null, null), before: '{oops' }, 'Alice', t)).toBe(
      'Alice deleted domain #7',
    );
  });

  it('says the same in French', async () => {
    const t = await translator('fr');
    const say = (r: AuditPhraseEntry) => describeAudit(r, 'Alice', t);
    expect(
      say(
        row(
          'policy.categories.update',
          'policy',
          { name: 'Students', filtering_level: 'moderate', blocked: [1] },
          { name: 'Students', filtering_level: 'moderate', blocked: [1, 20] },
        ),
      ),
    ).toBe('Alice a modifié la politique « Students » : a bloqué Jeux d’argent');
    expect(say(row('policy.delete', 'policy', policy, null))).toBe('Alice a supprimé la politique « Students »');
    expect(say(row('auth.login', 'admin', null, null))).toBe("Alice s'est connecté");
  });
});
