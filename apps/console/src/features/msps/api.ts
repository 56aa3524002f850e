import { Endpoints } from '@cordon/shared';
import { keepPreviousData } from '@tanstack/react-query';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';
import { pageQuery } from '../../components/ListPagination.tsx';

/** `GET /msp` (spec §7 MSPs): one page of MSPs sorted by name. */
export function useMspsQuery(page: number) {
  return useEndpointQuery(
    Endpoints.msps.list,
    { query: { ...pageQuery(page), sortkey: 'name', sortdir: 'asc' } },
    { placeholderData: keepPreviousData },
  );
}

/** `POST /msp` (spec §7 MSPs) with `mspCreateSchema`'s output. */
export function useCreateMspMutation() {
  return useEndpointMutation(Endpoints.msps.create);
}
