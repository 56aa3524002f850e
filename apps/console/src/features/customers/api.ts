import { type CustomerCreate, customerSchema, listOf } from '@cordon/shared';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../api/queryKeys.ts';
import { createdSchema } from '../../api/schemas.ts';
import { useApi } from '../../app/context.ts';
import { pageQuery } from '../../components/ListPagination.tsx';

const customerListSchema = listOf(customerSchema);

/** `GET /users/?msp_id=` (spec §7 Customers): one page of the MSP's customers. */
export function useCustomersQuery(mspId: number, page: number) {
  const api = useApi();
  const params = { msp_id: mspId, ...pageQuery(page), sortkey: 'name', sortdir: 'asc' };
  return useQuery({
    queryKey: queryKeys.customers.list(mspId, params),
    queryFn: ({ signal }) => api.request('/users/', customerListSchema, { query: params, signal }),
    placeholderData: keepPreviousData,
  });
}

/** `GET /users/{id}` (spec §7 Customers). */
export function useCustomerQuery(id: number) {
  const api = useApi();
  return useQuery({
    queryKey: queryKeys.customers.detail(id),
    queryFn: ({ signal }) => api.request(`/users/${id}`, customerSchema, { signal }),
  });
}

/** `POST /users/` (spec §7 Customers) with `customerCreateSchema`'s output. */
export function useCreateCustomerMutation() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CustomerCreate) => api.request('/users/', createdSchema, { method: 'POST', body }),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.customers.all }),
        queryClient.invalidateQueries({ queryKey: queryKeys.msps.all }),
      ]),
  });
}
