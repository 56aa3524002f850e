import type { EndpointBodyInput, EndpointDescriptor, EndpointResponse } from '@cordon/shared';
import {
  type QueryClient,
  type UseMutationOptions,
  type UseMutationResult,
  type UseQueryOptions,
  type UseQueryResult,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import type { ApiClient, CallArgs, EndpointInput } from './client.ts';
import { useApi } from './context.ts';
import { type EndpointQueryKey, endpointQueryKey, invalidateResources, type ResourceTag } from './queryKeys.ts';

/** What identifies a read or fixes a write's target: the endpoint's `params` and `query`. */
export type EndpointRequest<E extends EndpointDescriptor> = Omit<EndpointInput<E>, 'body'>;

/** TanStack options of a read, besides the key and the function the endpoint determines. */
export type EndpointQueryOptions<E extends EndpointDescriptor, T> = Omit<
  UseQueryOptions<EndpointResponse<E>, Error, T, EndpointQueryKey>,
  'queryKey' | 'queryFn'
>;

/**
 * Options of a write: the fixed `params`/`query`, what else goes stale, how the mutation's
 * variables become the body, and TanStack's own options.
 */
export type EndpointMutationOptions<E extends EndpointDescriptor, V> = EndpointRequest<E> & {
  /** Resources whose reads go stale on success, besides the endpoint's own (`endpoint.tag`). */
  invalidates?: readonly ResourceTag[];
  /** Variables → body; without it the variables are the body. */
  toBody?: (variables: V) => EndpointBodyInput<E>;
} & Omit<UseMutationOptions<EndpointResponse<E>, Error, V>, 'mutationFn'>;

/** The TanStack options of a read of `endpoint` through `api` (the key derived from the endpoint). */
export function endpointQueryOptions<E extends EndpointDescriptor, T = EndpointResponse<E>>(
  api: ApiClient,
  endpoint: E,
  input: EndpointRequest<E>,
  options: EndpointQueryOptions<E, T> = {},
): UseQueryOptions<EndpointResponse<E>, Error, T, EndpointQueryKey> {
  return {
    ...options,
    queryKey: endpointQueryKey(endpoint, input),
    queryFn: ({ signal }) => api.call(endpoint, ...([{ ...input, signal }] as unknown as CallArgs<E>)),
  };
}

/**
 * The TanStack options of a write to `endpoint` through `api`: on success it invalidates the
 * endpoint's resource and `invalidates`, then runs the caller's `onSuccess`.
 */
export function endpointMutationOptions<E extends EndpointDescriptor, V = EndpointBodyInput<E>>(
  api: ApiClient,
  queryClient: QueryClient,
  endpoint: E,
  options: EndpointMutationOptions<E, V>,
): UseMutationOptions<EndpointResponse<E>, Error, V> {
  const {
    params,
    query,
    invalidates = [],
    toBody,
    onSuccess,
    ...rest
  } = options as EndpointMutationOptions<E, V> & {
    params?: unknown;
    query?: unknown;
  };
  return {
    ...rest,
    mutationFn: (variables: V) => {
      const body = toBody ? toBody(variables) : variables;
      return api.call(endpoint, ...([{ params, query, body }] as unknown as CallArgs<E>));
    },
    onSuccess: async (...args) => {
      await invalidateResources(queryClient, [endpoint.tag, ...invalidates]);
      await onSuccess?.(...args);
    },
  };
}

/**
 * Reads `endpoint` (a GET descriptor of `Endpoints`) with TanStack Query; the answer is parsed
 * with the endpoint's response schema, and `options.select` may map it (e.g. a wire → screen mapper).
 */
export function useEndpointQuery<E extends EndpointDescriptor, T = EndpointResponse<E>>(
  endpoint: E,
  input: EndpointRequest<E>,
  options?: EndpointQueryOptions<E, T>,
): UseQueryResult<T, Error> {
  return useQuery(endpointQueryOptions(useApi(), endpoint, input, options));
}

/**
 * Writes through `endpoint`; `mutate(variables)` sends the body. On success every read of the
 * endpoint's resource (and of `options.invalidates`) goes stale.
 */
export function useEndpointMutation<E extends EndpointDescriptor, V = EndpointBodyInput<E>>(
  endpoint: E,
  ...[options]: Record<never, never> extends EndpointRequest<E>
    ? [options?: EndpointMutationOptions<E, V>]
    : [options: EndpointMutationOptions<E, V>]
): UseMutationResult<EndpointResponse<E>, Error, V> {
  const all = (options ?? {}) as EndpointMutationOptions<E, V>;
  return useMutation(endpointMutationOptions(useApi(), useQueryClient(), endpoint, all));
}
