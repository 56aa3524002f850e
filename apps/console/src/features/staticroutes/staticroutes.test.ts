import { staticRouteCreateSchema } from '@cordon/shared';
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../api/client.ts';
import { staticRoutesFeature } from './manifest.ts';

const route = {
  id: 7,
  user_id: 42,
  domain: 'corp.example',
  resolver: '10.0.0.53:53',
  description: 'HQ DNS',
  created_at: '2025-01-01T00:00:00.000Z',
  updated_at: '2025-01-01T00:00:00.000Z',
};

describe('static routes in the console', () => {
  it('validates the form with the shared schema: spec-notes §5 messages, normalised values', () => {
    const bad = staticRouteCreateSchema.safeParse({
      domain: 'https://corp.example/',
      resolver: 'dns.corp',
      description: '',
    });
    expect(bad.success).toBe(false);
    const messages = Object.fromEntries((bad.error?.issues ?? []).map((i) => [String(i.path[0]), i.message]));
    expect(messages.domain).toBe('Please specify domain or partial domain only, URLs are not permitted.');
    expect(messages.resolver).toMatch(/valid IP address/);
    expect(
      staticRouteCreateSchema.parse({ domain: 'Corp.Example.', resolver: ' 10.0.0.53 ', description: '' }),
    ).toEqual({
      domain: 'corp.example',
      resolver: '10.0.0.53:53',
      description: '',
    });
  });

  it("lists and creates through the descriptors with the customer's user_id, and deletes by id", async () => {
    const sent: Array<{ url: string; method: string; body: unknown }> = [];
    const api = createApiClient({
      getToken: () => 'tok',
      onOutcome: () => undefined,
      fetchImpl: async (input, init) => {
        sent.push({ url: String(input), method: String(init?.method), body: init?.body });
        const body =
          init?.method === 'GET' ? { data: [route], total: 1 } : init?.method === 'DELETE' ? { deleted: true } : route;
        return new Response(JSON.stringify(body), { status: init?.method === 'POST' ? 201 : 200 });
      },
    });
    const { Endpoints } = await import('@cordon/shared');
    const list = await api.call(Endpoints.staticroutes.list, {
      query: { user_id: 42, limit: 10, offset: 0, sortkey: 'domain', sortdir: 'asc' },
    });
    expect(list).toEqual({ data: [route], total: 1 });
    await api.call(Endpoints.staticroutes.create, {
      query: { user_id: 42 },
      body: { domain: 'corp.example', resolver: '10.0.0.53:53', description: 'HQ DNS' },
    });
    await api.call(Endpoints.staticroutes.remove, { params: { id: 7 } });
    expect(sent.map((s) => `${s.method} ${s.url}`)).toEqual([
      'GET /restapi/staticroutes?user_id=42&limit=10&offset=0&sortkey=domain&sortdir=asc',
      'POST /restapi/staticroutes?user_id=42',
      'DELETE /restapi/staticroutes/7',
    ]);
  });

  it('puts its page under the customer settings menu (docs/decisions.md "Static routes")', () => {
    expect(staticRoutesFeature.routes.map((r) => [r.path, r.area, r.menu])).toEqual([
      ['/customer/settings/static_routes', 'customer', { labelKey: 'nav.staticRoutes', parent: 'settings', order: 70 }],
    ]);
  });
});
