import type { Webhook, WebhookDelivery } from '@cordon/shared';
import { MantineProvider } from '@mantine/core';
import type { ReactNode } from 'react';
import { renderToString } from 'react-dom/server';
import { I18nextProvider } from 'react-i18next';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ENGLISH, loadFeatureTranslation } from '../../app/messages.ts';
import { createI18n } from '../../i18n/index.ts';
import { DeliveryLog, DisabledBanner, EventCheckboxes, SecretOnce, WebhookList } from './WebhookParts.tsx';

const HOOKS: Webhook[] = [
  {
    id: 1,
    msp_id: 3,
    user_id: 9,
    url: 'https://hooks.example.com/cordon',
    description: 'SIEM',
    events: ['security.hit', 'device.enrolled'],
    enabled: true,
    disabled_at: null,
    disabled_reason: null,
    consecutive_failures: 2,
    created_at: '2026-11-27T10:00:00.000Z',
    updated_at: '2026-11-27T10:00:00.000Z',
  },
  {
    id: 2,
    msp_id: 3,
    user_id: 9,
    url: 'https://dead.example.com/hook',
    description: '',
    events: ['report.sent'],
    enabled: false,
    disabled_at: '2026-11-27T11:00:00.000Z',
    disabled_reason: '10 consecutive failed deliveries',
    consecutive_failures: 10,
    created_at: '2026-11-26T10:00:00.000Z',
    updated_at: '2026-11-27T11:00:00.000Z',
  },
];

const DELIVERIES: WebhookDelivery[] = [
  {
    id: 12,
    event_id: 'evt_abc',
    type: 'security.hit',
    status: 'delivered',
    attempts: 2,
    next_attempt_at: null,
    last_status_code: 200,
    last_error: null,
    created_at: '2026-11-27T10:05:00.000Z',
    delivered_at: '2026-11-27T10:05:10.000Z',
    payload: '{}',
  },
  {
    id: 13,
    event_id: 'evt_def',
    type: 'ping',
    status: 'pending',
    attempts: 1,
    next_attempt_at: '2026-11-27T10:06:00.000Z',
    last_status_code: 500,
    last_error: 'HTTP 500',
    created_at: '2026-11-27T10:05:50.000Z',
    delivered_at: null,
    payload: '{}',
  },
];

async function render(node: ReactNode, lang = 'en') {
  const i18n = createI18n(ENGLISH, loadFeatureTranslation);
  await i18n.changeLanguage(lang);
  return renderToString(
    <MantineProvider>
      <I18nextProvider i18n={i18n}>{node}</I18nextProvider>
    </MantineProvider>,
  );
}

/** The Webhooks page's parts (issue 26; docs/api.md "Webhooks"). */
describe('webhook parts', () => {
  beforeAll(() => {
    // Dates go through the console's formatter, which reads the profile's time zone from storage.
    vi.stubGlobal('window', { localStorage: { getItem: () => null } });
  });
  it('lists endpoints with their events, state and failure run, and bans the disabled ones with the reason', async () => {
    const html = await render(
      <>
        <DisabledBanner rows={HOOKS} />
        <WebhookList rows={HOOKS} actions={() => null} />
      </>,
    );
    expect(html).toContain('https://hooks.example.com/cordon');
    expect(html).toContain('Security-category hit (malware, phishing…)');
    expect(html).toContain('Device enrolled');
    expect(html).toContain('Failed attempts in a row: 2');
    expect(html).toContain('role="alert"');
    expect(html).toContain('https://dead.example.com/hook was disabled: 10 consecutive failed deliveries.');
    expect(await render(<DisabledBanner rows={HOOKS.slice(0, 1)} />)).toBe(await render(null));
    expect(await render(<WebhookList rows={[]} actions={() => null} />)).toContain('No webhook endpoint yet.');
  });

  it('shows the delivery log with status, attempts, response code, error and a labelled Redeliver per row', async () => {
    const html = await render(
      <DeliveryLog rows={DELIVERIES} onRedeliver={() => undefined} pendingId={null} canRedeliver />,
    );
    expect(html).toContain('Delivered');
    expect(html).toContain('Pending');
    expect(html).toContain('>200<');
    expect(html).toContain('>500<');
    expect(html).toContain('HTTP 500');
    expect(html).toContain('aria-label="Redeliver event evt_abc"');
    expect(html).toContain('aria-label="Redeliver event evt_def"');
    expect(
      await render(<DeliveryLog rows={[]} onRedeliver={() => undefined} pendingId={null} canRedeliver />),
    ).toContain('No delivery yet.');
  });

  it('offers every event type as a labelled checkbox, and shows a secret once', async () => {
    const boxes = await render(<EventCheckboxes value={['security.hit']} onChange={() => undefined} />);
    for (const type of [
      'security.hit',
      'device.enrolled',
      'admin.changed',
      'report.sent',
      'feed.failed',
      'licence.threshold',
    ]) {
      expect(boxes).toContain(`value="${type}"`);
    }
    expect(boxes.match(/type="checkbox"/g)?.length).toBe(6);
    expect(boxes).toContain('Licence use past 80 % or 100 %');
    const secret = await render(<SecretOnce secret="whsec_c2VjcmV0" onDone={() => undefined} />);
    expect(secret).toContain('whsec_c2VjcmV0');
    expect(secret).toContain('Shown only once');
  });

  it('speaks French', async () => {
    const html = await render(
      <>
        <DisabledBanner rows={HOOKS} />
        <WebhookList rows={HOOKS} actions={() => null} />
        <DeliveryLog rows={DELIVERIES} onRedeliver={() => undefined} pendingId={null} canRedeliver />
      </>,
      'fr',
    );
    expect(html).toContain('Adresses de webhook désactivées');
    expect(html).toContain('Appareil inscrit');
    expect(html).toContain('Tentatives échouées d’affilée : 2');
    expect(html).toContain('Livré');
    expect(html).toContain('Renvoyer');
  });
});
