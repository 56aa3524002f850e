import { Endpoints } from '@cordon/shared';
import { describe, expect, it } from 'vitest';
import { batchItem, batchOutcome, deleteItems, runBatch } from './batch.ts';
import { createApiClient } from './client.ts';

/** A fake `/restapi/batch` recording each batch body and answering every sub-request by `answer`. */
function fakeBatchApi(answer: (id: string) => { status: number; body: unknown }) {
  const bodies: Array<Record<string, unknown>> = [];
  const urls: string[] = [];
  const api = createApiClient({
    getToken: () => 'tok',
    onOutcome: () => {},
    fetchImpl: async (input, init) => {
      urls.push(`${init?.method} ${String(input)}`);
      const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
      bodies.push(body);
      return Response.json(Object.fromEntries(Object.keys(body).map((id) => [id, answer(id)])));
    },
  });
  return { api, bodies, urls };
}

describe('batch sub-requests from endpoint descriptors', () => {
  it('fills the path from params; query for GET/DELETE, body for writes', () => {
    expect(batchItem(Endpoints.policies.remove, { params: { id: 12 } })).toEqual({
      method: 'DELETE',
      path: '/policies/12',
    });
    expect(batchItem(Endpoints.locations.removeStatic, { params: { id: 3, locId: 7 } })).toEqual({
      method: 'DELETE',
      path: '/users/3/locations/staticip/7',
    });
    expect(batchItem(Endpoints.policies.list, { query: { user_id: 3, limit: 5 } })).toEqual({
      method: 'GET',
      path: '/policies',
      parameters: { user_id: 3, limit: 5 },
    });
    expect(batchItem(Endpoints.policies.patch, { params: { id: 3, policyId: 9 }, body: { name: 'Calm' } })).toEqual({
      method: 'PATCH',
      path: '/users/3/policies/9',
      parameters: { name: 'Calm' },
    });
  });

  it('keys delete sub-requests by target id', () => {
    expect(deleteItems(Endpoints.policies.remove, [4, 5], (id) => ({ params: { id } }))).toEqual({
      '4': { method: 'DELETE', path: '/policies/4' },
      '5': { method: 'DELETE', path: '/policies/5' },
    });
  });
});

describe('batch outcomes', () => {
  it('splits successes from failures in the order sent, with the server error text', () => {
    const outcome = batchOutcome(['1', '2', '3', '4'], {
      '1': { status: 200, body: { deleted: true } },
      '2': { status: 409, body: { error: 'The default policy cannot be deleted.', code: 'ERR_CONFLICT' } },
      '4': { status: 500, body: 'oops' },
    });
    expect(outcome.succeeded).toEqual(['1']);
    expect(outcome.failed).toEqual([
      { id: '2', status: 409, error: 'The default policy cannot be deleted.' },
      { id: '3', status: 0, error: 'Something went wrong.' },
      { id: '4', status: 500, error: 'Something went wrong.' },
    ]);
  });

  it('sends one POST /batch per 100 sub-requests and merges the answers', async () => {
    const { api, bodies, urls } = fakeBatchApi((id) =>
      id === '7'
        ? { status: 404, body: { error: 'Client error: Resource not found.', code: 'ERR_NOT_FOUND' } }
        : { status: 200, body: { deleted: true } },
    );
    const ids = Array.from({ length: 150 }, (_, i) => i + 1);
    const outcome = await runBatch(
      api,
      deleteItems(Endpoints.policies.remove, ids, (id) => ({ params: { id } })),
    );
    expect(urls).toEqual(['POST /restapi/batch', 'POST /restapi/batch']);
    expect(bodies.map((b) => Object.keys(b).length)).toEqual([100, 50]);
    expect(bodies[0]?.['1']).toEqual({ method: 'DELETE', path: '/policies/1' });
    expect(outcome.succeeded).toHaveLength(149);
    expect(outcome.failed).toEqual([{ id: '7', status: 404, error: 'Client error: Resource not found.' }]);
  });

  it('sends a single small batch in one call', async () => {
    const { api, urls } = fakeBatchApi(() => ({ status: 200, body: { deleted: true } }));
    const outcome = await runBatch(
      api,
      deleteItems(Endpoints.policies.remove, [1, 2], (id) => ({ params: { id } })),
    );
    expect(urls).toHaveLength(1);
    expect(outcome).toEqual({ succeeded: ['1', '2'], failed: [] });
  });
});
