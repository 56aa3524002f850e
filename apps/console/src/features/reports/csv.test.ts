import type { Report } from '@cordon/shared';
import { describe, expect, it } from 'vitest';
import { ENGLISH, loadFeatureTranslation } from '../../app/messages.ts';
import { categoryLabel } from '../../components/categoryName.ts';
import { createI18n } from '../../i18n/index.ts';
import { reportCsv, reportCsvName } from './csv.ts';

describe('report CSV', () => {
  const report = {
    code: 'r_blocked_category',
    type: 'blocked',
    dimension: 'category',
    start: '2026-11-16',
    end: '2026-11-22',
    timezone: 'UTC',
    total: 3,
    rows: [{ key: '6', name: 'Spyware, Malicious', requests: 3, allowed: 0, blocked: 3 }],
  };
  it('writes one row per key with quoted names', () => {
    expect(reportCsv(report)).toBe('key,name,requests,allowed,blocked\r\n6,"Spyware, Malicious",3,0,3\r\n');
  });
  it('names the file with DD-MM-YYYY (spec-notes §9)', () => {
    expect(reportCsvName(report, new Date(2026, 10, 2))).toBe('r_blocked_category-02-11-2026.csv');
  });

  it('names category rows in the interface language (French once chosen); other reports keep their names', async () => {
    const instance = createI18n(ENGLISH, loadFeatureTranslation);
    const namer = (id: number, fallback?: string) => categoryLabel(instance.t, id, fallback);
    const byCategory: Report = {
      ...report,
      rows: [
        { key: '20', name: 'Gambling', requests: 5, allowed: 0, blocked: 5 },
        { key: '45', name: 'Social Networking', requests: 2, allowed: 0, blocked: 2 },
      ],
    } as Report;
    const byDomain = { ...byCategory, code: 'r_blocked_domain', dimension: 'domain' } as Report;
    expect(reportCsv(byCategory, namer)).toBe(
      'key,name,requests,allowed,blocked\r\n20,Gambling,5,0,5\r\n45,Social Networking,2,0,2\r\n',
    );
    await instance.changeLanguage('fr');
    expect(reportCsv(byCategory, namer)).toBe(
      'key,name,requests,allowed,blocked\r\n20,Jeux d’argent,5,0,5\r\n45,Réseaux sociaux,2,0,2\r\n',
    );
    // A domain report's key is no category id: its names stay.
    expect(reportCsv(byDomain, namer)).toContain('\r\n20,Gambling,5,0,5\r\n');
  });
});
