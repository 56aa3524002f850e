import { Endpoints, Messages, type PolicyNotifications, policyNotificationsUpdateSchema } from '@cordon/shared';
import { MutationObserver, QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../api/client.ts';
import { endpointMutationOptions, endpointQueryOptions } from '../../api/hooks.ts';
import { toBody, toFormErrors, toValues } from './PolicyNotificationsForm.tsx';

const settings: PolicyNotifications = {
  policy_id: 12,
  user_id: 7,
  categories: [5, 6],
  interval: 'hourly',
  period: 'day',
  emails: ['sec@example.test'],
  last_run_at: null,
  last_sent_at: null,
  last_status: null,
  last_reason: null,
  updated_at: null,
};

describe('category notifications form (spec-notes §3 "Notification settings")', () => {
  it('maps stored settings to the form and back to a valid body', () => {
    const values = toValues(settings);
    expect(values).toEqual({ categories: ['5', '6'], interval: 'hourly', period: 'day', emails: ['sec@example.test'] });
    expect(policyNotificationsUpdateSchema.parse(toBody(values))).toEqual({
      categories: [5, 6],
      interval: 'hourly',
      period: 'day',
      emails: ['sec@example.test'],
    });
  });

  it('refuses categories without an e-mail with the spec text, on the e-mail field', () => {
    const bad = policyNotificationsUpdateSchema.safeParse(toBody({ ...toValues(settings), emails: [] }));
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['emails', Messages.notificationEmailRequired],
    ]);
    // Off: no categories, no recipient needed.
    expect(
      policyNotificationsUpdateSchema.safeParse(toBody({ ...toValues(settings), categories: [], emails: [] })).success,
    ).toBe(true);
    // A message about one address lands on the tags field.
    expect(toFormErrors({ 'emails.1': Messages.invalidEmail, 'categories.0': 'x', interval: 'y' })).toEqual({
      emails: Messages.invalidEmail,
      categories: 'x',
      interval: 'y',
    });
  });

  it('reads and writes a policy by id and the default policy by user_id', async () => {
    const sent: string[] = [];
    const api = createApiClient({
      getToken: () => null,
      onOutcome: () => {},
      fetchImpl: async (input, init) => {
        sent.push(`${init?.method} ${String(input).replace('/restapi', '')} ${init?.body ?? ''}`.trim());
        return new Response(JSON.stringify(settings), { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    const client = new QueryClient();
    await client.fetchQuery(endpointQueryOptions(api, Endpoints.notifications.get, { params: { id: 12 } }));
    await client.fetchQuery(endpointQueryOptions(api, Endpoints.notifications.getDefault, { query: { user_id: 7 } }));
    const body = policyNotificationsUpdateSchema.parse(toBody(toValues(settings)));
    await new MutationObserver(
      client,
      endpointMutationOptions(api, client, Endpoints.notifications.set, { params: { id: 12 } }),
    ).mutate(body);
    await new MutationObserver(
      client,
      endpointMutationOptions(api, client, Endpoints.notifications.setDefault, { query: { user_id: 7 } }),
    ).mutate(body);
    const json = '{"categories":[5,6],"interval":"hourly","period":"day","emails":["sec@example.test"]}';
    expect(sent).toEqual([
      'GET /policies/12/notifications',
      'GET /policies/default/notifications?user_id=7',
      `POST /policies/12/notifications ${json}`,
      `POST /policies/default/notifications?user_id=7 ${json}`,
    ]);
  });
});
