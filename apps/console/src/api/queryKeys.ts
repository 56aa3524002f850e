import type { EndpointDescriptor, Endpoints } from '@cordon/shared';
import type { QueryClient } from '@tanstack/react-query';

type EndpointTree = typeof Endpoints;
type AnyEndpoint = { [R in keyof EndpointTree]: EndpointTree[R][keyof EndpointTree[R]] }[keyof EndpointTree];

/** A resource of the API, named by its endpoints' `tag` (e.g. `policies`, `msp`, `locations`). */
export type ResourceTag = AnyEndpoint['tag'];

/**
 * The query key of one read (docs/contributing.md "Conventions"), derived from the endpoint descriptor:
 * `[resource tag, 'METHOD /path', { params, query }]`, from the broadest to the narrowest, so that
 * invalidating `[tag]` marks every read of the resource stale and nothing else.
 */
export type EndpointQueryKey = readonly [tag: string, endpoint: string, input: object];

/** The key of a read of `endpoint` with `input` (its params and query). */
export function endpointQueryKey(endpoint: EndpointDescriptor, input: object): EndpointQueryKey {
  return [endpoint.tag, `${endpoint.method} ${endpoint.path}`, input];
}

/** The key prefix of every read of a resource. */
export function resourceQueryKey(tag: string): readonly [string] {
  return [tag];
}

/**
 * Marks every read of the given resources stale (active ones refetch); resolves once the refetches
 * are done, so a form closes on fresh data.
 */
export async function invalidateResources(queryClient: QueryClient, tags: readonly string[]): Promise<void> {
  await Promise.all(
    [...new Set(tags)].map((tag) => queryClient.invalidateQueries({ queryKey: resourceQueryKey(tag) })),
  );
}
