import { describe, expect, it } from 'vitest';
import { ENGLISH, loadFeatureTranslation } from '../../app/messages.ts';
import { createI18n } from '../../i18n/index.ts';
import { auditActor } from './AuditLogPage.tsx';

/** The audit log's "who" column (docs/api.md "API tokens": a change made with a token names it). */
describe('auditActor', () => {
  it('names the API token and its admin, the admin alone, or the operator, in English and French', async () => {
    const i18n = createI18n(ENGLISH, loadFeatureTranslation);
    await i18n.changeLanguage('en');
    const t = i18n.t.bind(i18n) as (key: string, values?: Record<string, string>) => string;
    expect(auditActor({ admin_email: 'msp1@example.test', api_token_name: 'CI robot' }, t)).toBe(
      'API token “CI robot” of msp1@example.test',
    );
    expect(auditActor({ admin_email: 'msp1@example.test', api_token_name: null }, t)).toBe('msp1@example.test');
    expect(auditActor({ admin_email: null, api_token_name: null }, t)).toBe('Operator (server command)');
    await i18n.changeLanguage('fr');
    expect(auditActor({ admin_email: 'msp1@example.test', api_token_name: 'CI robot' }, t)).toBe(
      'Jeton d’API « CI robot » de msp1@example.test',
    );
  });
});
