import { Endpoints } from '@cordon/shared';
import { keepPreviousData } from '@tanstack/react-query';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';
import { pageQuery } from '../../components/ListPagination.tsx';

/** `GET /users/?msp_id=` (spec §7 Customers): one page of the MSP's customers. */
export function useCustomersQuery(mspId: number, page: number) {
  return useEndpointQuery(
    Endpoints.customers.list,
    { query: { msp_id: mspId, ...pageQuery(page), sortkey: 'name', sortdir: 'asc' } },
    { placeholderData: keepPreviousData },
  );
}

/** `GET /msp/{id}` (spec §7 MSPs): the MSP in scope, for the overview's subtitle. */
export function useMspQuery(id: number) {
  return useEndpointQuery(Endpoints.msps.get, { params: { id } });
}

/** `POST /users/` (spec §7 Customers) with `customerCreateSchema`'s output; the MSP's customer count changes too. */
export function useCreateCustomerMutation() {
  return useEndpointMutation(Endpoints.customers.create, { invalidates: ['msp'] });
}
