import { ddmmyyyy } from '@cordon/shared';
import { describe, expect, it } from 'vitest';
import { ENGLISH, loadFeatureTranslation } from '../../app/messages.ts';
import { categoryLabel } from '../../components/categoryName.ts';
import { createI18n } from '../../i18n/index.ts';
import { historyCsv } from './csv.ts';

describe('history CSV', () => {
  it('names the file date DD-MM-YYYY (spec-notes §9)', () => {
    expect(ddmmyyyy(new Date(2026, 0, 5))).toBe('05-01-2026');
  });
  it('quotes fields and neutralises formulas', () => {
    const csv = historyCsv([
      {
        id: 1,
        time: '2026-01-05T10:00:00.000Z',
        qname: 'a.example',
        qtype: 'A',
        action: 'blocked',
        reason: 'category',
        categories: [
          { id: 1, name: 'Adult, explicit' },
          { id: 2, name: 'Ads' },
        ],
        client_ip: '10.0.0.1',
        location_id: null,
        location: '=cmd',
        policy_id: null,
        rcode: 'NXDOMAIN',
        protocol: 'udp',
        device_id: 4,
        device: 'Laptop, 7',
        user: '@alice',
        group_id: null,
        group: null,
        matched_name: null,
      },
      {
        id: 2,
        time: '2026-01-05T10:00:01.000Z',
        qname: 'cloak.example',
        qtype: 'AAAA',
        action: 'blocked',
        reason: 'category',
        categories: [{ id: 20, name: 'Gambling' }],
        client_ip: '10.0.0.2',
        location_id: 3,
        location: 'HQ',
        policy_id: 4,
        rcode: 'NOERROR',
        protocol: 'doh',
        device_id: null,
        device: null,
        user: null,
        group_id: null,
        group: null,
        matched_name: 'cname-target.example',
      },
    ]);
    expect(csv).toBe(
      'time,qname,qtype,action,reason,categories,client_ip,location,rcode,user,device,group,matched_name\r\n' +
        `2026-01-05T10:00:00.000Z,a.example,A,blocked,category,"Adult, explicit; Ads",10.0.0.1,'=cmd,NXDOMAIN,'@alice,"Laptop, 7",,\r\n` +
        '2026-01-05T10:00:01.000Z,cloak.example,AAAA,blocked,category,Gambling,10.0.0.2,HQ,NOERROR,,,,cname-target.example\r\n',
    );
  });

  it('names the categories in the interface language: French once French is chosen, English before', async () => {
    const instance = createI18n(ENGLISH, loadFeatureTranslation);
    const namer = (id: number, fallback?: string) => categoryLabel(instance.t, id, fallback);
    const row = {
      id: 3,
      time: '2026-01-05T10:00:02.000Z',
      qname: 'casino.example',
      qtype: 'A',
      action: 'blocked' as const,
      reason: 'category',
      categories: [
        { id: 20, name: 'Gambling' },
        { id: 45, name: 'Social Networking' },
      ],
      client_ip: '10.0.0.3',
      location_id: null,
      location: null,
      policy_id: null,
      rcode: 'NXDOMAIN',
      protocol: 'udp',
      device_id: null,
      device: null,
      user: null,
      group_id: null,
      group: null,
      matched_name: null,
    };
    const cell = (csv: string) => csv.split('\r\n')[1]?.split(',')[5];
    expect(cell(historyCsv([row], namer))).toBe('Gambling; Social Networking');
    await instance.changeLanguage('fr');
    expect(cell(historyCsv([row], namer))).toBe('Jeux d’argent; Réseaux sociaux');
    // Without a namer, the API's names as they came.
    expect(cell(historyCsv([row]))).toBe('Gambling; Social Networking');
  });
});
