import { Endpoints } from '@cordon/shared';
import { MutationObserver, QueryClient, QueryObserver } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import { createApiClient } from './client.ts';
import { endpointMutationOptions, endpointQueryOptions } from './hooks.ts';
import { endpointQueryKey } from './queryKeys.ts';

const policy = {
  id: 12,
  user_id: 42,
  name: 'Students',
  policyname: 'Students',
  description: '',
  filtering_level: 'moderate',
  is_default: false,
  allow_unclassified: true,
  safe_search: false,
  first_location: null,
  locations: [],
  extra_info: {},
  created_at: '2025-01-01T00:00:00.000Z',
  updated_at: '2025-01-01T00:00:00.000Z',
};
const msp = {
  id: 1,
  name: 'Northwind',
  company_name: 'NW',
  license: '',
  timezone: '',
  customers_count: 0,
  created_at: '2025-01-01T00:00:00.000Z',
};
const categories = [{ id: 9, name: 'Pornography/Sex', level: 'M', allowed: true }];

/** A fake API answering by `METHOD path` and recording each request's method, path and body. */
function fakeApi() {
  const sent: string[] = [];
  const answers: Record<string, unknown> = {
    'GET /policies/12': policy,
    'PUT /policies/12': policy,
    'GET /policies': { data: [policy], total: 1 },
    'GET /policies/12/categories': categories,
    'PUT /policies/12/categories': categories,
    'GET /msp/1': msp,
  };
  const api = createApiClient({
    getToken: () => null,
    onOutcome: () => {},
    fetchImpl: async (input, init) => {
      const path = String(input).replace('/restapi', '').split('?')[0] as string;
      const key = `${init?.method} ${path}`;
      sent.push(init?.body ? `${key} ${init.body}` : key);
      return key in answers
        ? Response.json(answers[key])
        : Response.json({ error: 'Not found', code: 'ERR_NOT_FOUND' }, { status: 404 });
    },
  });
  return { api, sent };
}

describe('query keys derived from endpoint descriptors', () => {
  it('are [resource tag, METHOD path, input]', () => {
    expect(endpointQueryKey(Endpoints.policies.get, { params: { id: 12 } })).toEqual([
      'policies',
      'GET /policies/:id',
      { params: { id: 12 } },
    ]);
    expect(endpointQueryKey(Endpoints.stats.customerTraffic, { params: { id: 4, day: 'today' } })[0]).toBe('stats');
  });
});

describe('generic endpoint reads and writes (TanStack Query)', () => {
  it('reads through the endpoint and maps with select', async () => {
    const { api, sent } = fakeApi();
    const queryClient = new QueryClient();
    const observer = new QueryObserver(
      queryClient,
      endpointQueryOptions(
        api,
        Endpoints.policies.getCategories,
        { params: { id: 12 } },
        { select: (list) => list.map((c) => c.name) },
      ),
    );
    const unsubscribe = observer.subscribe(() => {});
    await vi.waitFor(() => expect(observer.getCurrentResult().data).toEqual(['Pornography/Sex']));
    unsubscribe();
    expect(sent).toEqual(['GET /policies/12/categories']);
    // The cache holds the parsed answer under the derived key.
    expect(
      queryClient.getQueryData(endpointQueryKey(Endpoints.policies.getCategories, { params: { id: 12 } })),
    ).toEqual(categories);
  });

  it('a write invalidates every read of its resource and of `invalidates`, and nothing else', async () => {
    const { api, sent } = fakeApi();
    const queryClient = new QueryClient();
    const reads = {
      detail: endpointQueryOptions(api, Endpoints.policies.get, { params: { id: 12 } }),
      list: endpointQueryOptions(api, Endpoints.policies.list, { query: { user_id: 42 } }),
      choices: endpointQueryOptions(api, Endpoints.policies.list, { query: { user_id: 42, show_default: 'false' } }),
      msp: endpointQueryOptions(api, Endpoints.msps.get, { params: { id: 1 } }),
    };
    await queryClient.fetchQuery(reads.detail);
    await queryClient.fetchQuery(reads.list);
    await queryClient.fetchQuery(reads.choices);
    await queryClient.fetchQuery(reads.msp);
    const stale = () =>
      Object.fromEntries(
        Object.entries(reads).map(([name, read]) => [name, queryClient.getQueryState(read.queryKey)?.isInvalidated]),
      );
    expect(stale()).toEqual({ detail: false, list: false, choices: false, msp: false });

    const onSuccess = vi.fn();
    const update = new MutationObserver(
      queryClient,
      endpointMutationOptions(api, queryClient, Endpoints.policies.update, { params: { id: 12 }, onSuccess }),
    );
    await update.mutate({ name: 'Pupils' });
    expect(stale()).toEqual({ detail: true, list: true, choices: true, msp: false });
    expect(onSuccess).toHaveBeenCalledOnce();
    expect(sent).toContain('PUT /policies/12 {"name":"Pupils"}');

    const withMsp = new MutationObserver(
      queryClient,
      endpointMutationOptions(api, queryClient, Endpoints.policies.update, {
        params: { id: 12 },
        invalidates: ['msp'],
      }),
    );
    await withMsp.mutate({});
    expect(stale().msp).toBe(true);
  });

  it('maps variables to the body with toBody', async () => {
    const { api, sent } = fakeApi();
    const queryClient = new QueryClient();
    const save = new MutationObserver(
      queryClient,
      endpointMutationOptions(api, queryClient, Endpoints.policies.setCategories, {
        params: { id: 12 },
        toBody: (blockedIds: readonly number[]) => blockedIds.map((id) => ({ id, allowed: true })),
      }),
    );
    await save.mutate([9]);
    expect(sent).toEqual(['PUT /policies/12/categories [{"id":9,"allowed":true}]']);
  });

  it('does not invalidate when the write fails', async () => {
    const { api } = fakeApi();
    const queryClient = new QueryClient();
    const detail = endpointQueryOptions(api, Endpoints.policies.get, { params: { id: 12 } });
    await queryClient.fetchQuery(detail);
    const remove = new MutationObserver(
      queryClient,
      endpointMutationOptions(api, queryClient, Endpoints.policies.remove, { params: { id: 12 } }),
    );
    await expect(remove.mutate(undefined)).rejects.toMatchObject({ kind: 'http', status: 404 });
    expect(queryClient.getQueryState(detail.queryKey)?.isInvalidated).toBe(false);
  });
});
