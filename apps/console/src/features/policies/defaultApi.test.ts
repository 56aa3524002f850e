import { Endpoints } from '@cordon/shared';
import { MutationObserver, QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../api/client.ts';
import { endpointMutationOptions, endpointQueryOptions } from '../../api/hooks.ts';
import { categoryToWire } from './categoryMapper.ts';

const template = {
  id: 3,
  user_id: null,
  msp_id: 7,
  scope: 'msp',
  name: 'Default',
  policyname: 'Default',
  description: '',
  filtering_level: 'low',
  is_default: true,
  allow_unclassified: true,
  safe_search: true,
  first_location: null,
  locations: [],
  extra_info: {},
  created_at: '2025-01-01T00:00:00.000Z',
  updated_at: '2025-01-01T00:00:00.000Z',
};
const category = { id: 21, name: 'Games', level: 'L', allowed: false };

/** A fake API answering by `METHOD path`, recording `METHOD url body` of each request. */
function fakeApi() {
  const sent: string[] = [];
  const answers: Record<string, unknown> = {
    'GET /policies/default': template,
    'PUT /policies/default': template,
    'POST /policies/default/categories': [category],
    'PUT /policies/default/categories/21': category,
  };
  const api = createApiClient({
    getToken: () => null,
    onOutcome: () => {},
    fetchImpl: async (input, init) => {
      const url = String(input).replace('/restapi', '');
      const key = `${init?.method} ${url.split('?')[0]}`;
      sent.push(`${init?.method} ${url} ${init?.body ?? ''}`.trim());
      return new Response(JSON.stringify(answers[key] ?? null), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    },
  });
  return { api, sent };
}

describe('default policy requests (spec-notes §7 "Default policy")', () => {
  it("reads and writes an MSP's global default policy with msp_id, the system's with no owner", async () => {
    const { api, sent } = fakeApi();
    const client = new QueryClient();
    const read = await client.fetchQuery(
      endpointQueryOptions(api, Endpoints.policies.getDefault, { query: { msp_id: 7 } }),
    );
    expect(read).toMatchObject({ scope: 'msp', msp_id: 7, safe_search: true });
    const put = new MutationObserver(
      client,
      endpointMutationOptions(api, client, Endpoints.policies.updateDefault, { query: {} }),
    );
    await put.mutate({ safe_search: false });
    const cats = new MutationObserver(
      client,
      endpointMutationOptions(api, client, Endpoints.policies.postDefaultCategories, {
        query: { msp_id: 7 },
        toBody: (list: { id: number; allowed: boolean }[]) => list.map(categoryToWire),
      }),
    );
    await cats.mutate([{ id: 21, allowed: false }]);
    const level = new MutationObserver(
      client,
      endpointMutationOptions(api, client, Endpoints.policies.setCategoryLevel, { params: { id: 21 } }),
    );
    await level.mutate({ level: null });
    expect(sent).toEqual([
      'GET /policies/default?msp_id=7',
      'PUT /policies/default {"safe_search":false}',
      'POST /policies/default/categories?msp_id=7 [{"id":21,"allowed":true}]',
      'PUT /policies/default/categories/21 {"level":null}',
    ]);
  });
});
