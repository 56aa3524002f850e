import { listOf, type MspCreate, mspSchema } from '@cordon/shared';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../api/queryKeys.ts';
import { createdSchema } from '../../api/schemas.ts';
import { useApi } from '../../app/context.ts';
import { pageQuery } from '../../components/ListPagination.tsx';

const mspListSchema = listOf(mspSchema);

/** `GET /msp` (spec §7), one page of MSPs sorted by name. */
export function useMspsQuery(page: number) {
  const api = useApi();
  const params = { ...pageQuery(page), sortkey: 'name', sortdir: 'asc' };
  return useQuery({
    queryKey: queryKeys.msps.list(params),
    queryFn: ({ signal }) => api.request('/msp', mspListSchema, { query: params, signal }),
    placeholderData: keepPreviousData,
  });
}

/** `GET /msp/{id}` (spec §7). */
export function useMspQuery(id: number) {
  const api = useApi();
  return useQuery({
    queryKey: queryKeys.msps.detail(id),
    queryFn: ({ signal }) => api.request(`/msp/${id}`, mspSchema, { signal }),
  });
}

/** `POST /msp` (spec §7) with `mspCreateSchema`'s output. */
export function useCreateMspMutation() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: MspCreate) => api.request('/msp', createdSchema, { method: 'POST', body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.msps.all }),
  });
}
