import { ApiError, Endpoints, ErrorTexts, Messages } from '@cordon/shared';
import { describe, expect, it } from 'vitest';
import { ApiCallError, createApiClient, type ResponseOutcome } from './client.ts';

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** A client over a fake fetch answering `status` + `body` (JSON) and recording what was sent. */
function fakeClient(answer: { status: number; body?: unknown } | 'network', token: string | null = 'tok') {
  const sent: Sent[] = [];
  const outcomes: ResponseOutcome[] = [];
  const client = createApiClient({
    getToken: () => token,
    onOutcome: (o) => outcomes.push(o),
    fetchImpl: async (input, init) => {
      sent.push({
        url: String(input),
        method: String(init?.method),
        headers: init?.headers as Record<string, string>,
        body: init?.body as string | undefined,
      });
      if (answer === 'network') throw new TypeError('Failed to fetch');
      return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), { status: answer.status });
    },
  });
  return { client, sent, outcomes };
}

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

async function rejection(p: Promise<unknown>): Promise<ApiCallError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiCallError);
  return err as ApiCallError;
}

describe('api.call over endpoint descriptors (docs/architecture.md "Layers"; docs/api.md)', () => {
  it('fills the path params, sends method, bearer and JSON body, and parses with endpoint.response', async () => {
    const { client, sent, outcomes } = fakeClient({ status: 200, body: { ...policy, unknown_extra: 1 } });
    const result = await client.call(Endpoints.policies.update, { params: { id: 12 }, body: { name: 'Students' } });
    expect(sent).toEqual([
      {
        url: '/restapi/policies/12',
        method: 'PUT',
        headers: { Accept: 'application/json', Authorization: 'Bearer tok', 'Content-Type': 'application/json' },
        body: '{"name":"Students"}',
      },
    ]);
    // Parsed by policySchema: the extra field is stripped, the typed fields are kept.
    expect(result).toEqual(policy);
    expect(outcomes).toEqual([{ type: 'success' }]);
  });

  it('serialises the query, leaving out undefined values, and lets headers override the bearer', async () => {
    const list = fakeClient({ status: 200, body: { data: [], total: 0 } }, null);
    await list.client.call(Endpoints.customers.list, { query: { msp_id: 7, limit: 10, filter: undefined } });
    expect(list.sent[0]?.url).toBe('/restapi/users/?msp_id=7&limit=10');
    expect(list.sent[0]?.method).toBe('GET');
    expect(list.sent[0]?.headers).toEqual({ Accept: 'application/json' });
    const logout = fakeClient({ status: 200, body: { logged_out: true } });
    expect(await logout.client.call(Endpoints.auth.logout, { headers: { Authorization: 'Basic x' } })).toEqual({
      logged_out: true,
    });
    expect(logout.sent[0]?.method).toBe('POST');
    expect(logout.sent[0]?.headers['Authorization']).toBe('Basic x');
  });

  it('cancels calls for customer id 0 locally (spec-notes §5): no request, a silent outcome', async () => {
    const { client, sent, outcomes } = fakeClient({ status: 200, body: { data: [], total: 0 } });
    const inPath = await rejection(client.call(Endpoints.locations.list, { params: { id: 0, type: 'all' } }));
    const inQuery = await rejection(client.call(Endpoints.policies.list, { query: { user_id: 0 } }));
    for (const err of [inPath, inQuery]) {
      expect(err.kind).toBe('cancelled');
      expect(err.message).toBe(Messages.userNotFound);
    }
    expect(sent).toEqual([]);
    expect(outcomes).toEqual([{ type: 'cancelled' }, { type: 'cancelled' }]);
  });

  it("turns the error envelope into an ApiCallError with the server's text, code and fields", async () => {
    const { client, outcomes } = fakeClient({
      status: 400,
      body: { error: 'Name already taken', code: 'ERR_VALIDATION', fields: { name: 'Name already taken' } },
    });
    const err = await rejection(client.call(Endpoints.msps.create, { body: { name: 'A', company_name: 'B' } }));
    expect(err).toMatchObject({ kind: 'http', status: 400, code: 'ERR_VALIDATION', message: 'Name already taken' });
    expect(err.fields).toEqual({ name: 'Name already taken' });
    expect(err.name).toBe('ApiCallError');
    // The console's error is not the server's `ApiError` of @cordon/shared (the names no longer collide).
    expect(err).not.toBeInstanceOf(ApiError);
    // `fields: true` tells the global handling that the form shows the message under its field.
    expect(outcomes).toEqual([{ type: 'http', status: 400, text: 'Name already taken', fields: true }]);
  });

  it('refuses an answer that does not match the contract', async () => {
    const { client, outcomes } = fakeClient({ status: 200, body: { requests: 'many' } });
    const err = await rejection(client.call(Endpoints.stats.customerOverview, { params: { id: 4, date: 'today' } }));
    expect(err).toMatchObject({ kind: 'contract', status: 200, message: ErrorTexts.somethingWentWrong });
    expect(outcomes).toEqual([{ type: 'success' }]);
  });

  it('reports a network failure once', async () => {
    const { client, outcomes } = fakeClient('network');
    const err = await rejection(client.call(Endpoints.msps.get, { params: { id: 1 } }));
    expect(err).toMatchObject({ kind: 'network', message: ErrorTexts.connectionLost });
    expect(outcomes).toEqual([{ type: 'network' }]);
  });

  it('sends a multipart form as is: no JSON content type, the query still in the URL (spec-notes §7 Domains import)', async () => {
    const sent: { url: string; headers: Record<string, string>; body: unknown }[] = [];
    const client = createApiClient({
      getToken: () => 'tok',
      onOutcome: () => {},
      fetchImpl: async (input, init) => {
        sent.push({ url: String(input), headers: init?.headers as Record<string, string>, body: init?.body });
        return new Response(JSON.stringify({ imported: 2, skipped: 1, removed: 0 }), { status: 200 });
      },
    });
    const form = new FormData();
    form.set('csv', new Blob(['domain\na.example\nb.example\n'], { type: 'text/csv' }), 'list.csv');
    const result = await client.call(Endpoints.domains.import, {
      params: { id: 7, action: 'block' },
      query: { overwrite: 'true' },
      form,
    });
    expect(result).toEqual({ imported: 2, skipped: 1, removed: 0 });
    expect(sent[0]?.url).toBe('/restapi/policies/7/domains/import/block?overwrite=true');
    expect(sent[0]?.body).toBe(form);
    expect(sent[0]?.headers['Content-Type']).toBeUndefined();
    expect(sent[0]?.headers['Authorization']).toBe('Bearer tok');
  });

  it('reads a CSV download as text and hands the headers to onHeaders (the server names the file)', async () => {
    const csv = 'domain,object,include_subdomains,comment,log_requests\n1,block,true,,true\n';
    const client = createApiClient({
      getToken: () => 'tok',
      onOutcome: () => {},
      fetchImpl: async () =>
        new Response(csv, {
          status: 200,
          headers: {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': 'attachment; filename="domains-all-31-01-2025.csv"',
          },
        }),
    });
    let disposition: string | null = null;
    const text = await client.call(Endpoints.domains.globalExport, {
      params: { action: 'all' },
      onHeaders: (h) => {
        disposition = h.get('content-disposition');
      },
    });
    expect(text).toBe(csv);
    expect(disposition).toBe('attachment; filename="domains-all-31-01-2025.csv"');
  });

  it('refuses a body and a form together (a programming error), sending nothing', async () => {
    const { client, sent } = fakeClient({ status: 200, body: {} });
    await expect(
      client.call(Endpoints.msps.create, { body: { name: 'A', company_name: 'B' }, form: new FormData() }),
    ).rejects.toThrow('not both');
    expect(sent).toEqual([]);
  });
});
