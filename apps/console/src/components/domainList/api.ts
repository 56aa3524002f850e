import { type DomainAction, type DomainListKind, domainEndpoints, domainExportFileName } from '@cordon/shared';
import { keepPreviousData, useMutation, useQueryClient } from '@tanstack/react-query';
import { deleteItems, useBatchMutation } from '../../api/batch.ts';
import { useApi } from '../../api/context.ts';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';
import { invalidateResources } from '../../api/queryKeys.ts';
import { type DomainListOwner, fileNameFromDisposition } from './logic.ts';

/** The list's sort keys the table offers (docs/api.md "Domain lists"; `name` sorts by the domain). */
export type DomainSortKey = 'name' | 'object' | 'updated_at';

/** One page of a list (spec-notes §9): paging, sort (default name ascending) and the search text (empty = none). */
export interface DomainListPage {
  limit: number;
  offset: number;
  sortkey: DomainSortKey;
  sortdir: 'asc' | 'desc';
  filter: string;
}

const policyQuery = (o: Extract<DomainListOwner, { kind: 'policy' }>) => (o.userId ? { user_id: o.userId } : {});
const globalQuery = (o: Extract<DomainListOwner, { kind: 'global' }>) => (o.mspId ? { msp_id: o.mspId } : {});

/**
 * `GET /policies/{id}/domains/{kind}` or `GET /global/domains/{kind}[?msp_id=]` (spec-notes §7 Domains):
 * one page of the owner's allow, block or both lists.
 */
export function useDomainEntriesQuery(owner: DomainListOwner, kind: DomainListKind, page: DomainListPage) {
  const list = {
    limit: page.limit,
    offset: page.offset,
    sortkey: page.sortkey,
    sortdir: page.sortdir,
    ...(page.filter ? { filter: page.filter } : {}),
  };
  const opts = { placeholderData: keepPreviousData };
  const policy = useEndpointQuery(
    domainEndpoints.list,
    {
      params: { id: owner.kind === 'policy' ? owner.policyId : 0, action: kind },
      query: { ...list, ...(owner.kind === 'policy' ? policyQuery(owner) : {}) },
    },
    { ...opts, enabled: owner.kind === 'policy' },
  );
  const global = useEndpointQuery(
    domainEndpoints.globalList,
    { params: { action: kind }, query: { ...list, ...(owner.kind === 'global' ? globalQuery(owner) : {}) } },
    { ...opts, enabled: owner.kind === 'global' },
  );
  return owner.kind === 'policy' ? policy : global;
}

/** `GET …/domains/all/{entryId}` (spec-notes §7 Domains): one entry, found in either list. */
export function useDomainEntryQuery(owner: DomainListOwner, entryId: number) {
  const policy = useEndpointQuery(
    domainEndpoints.get,
    {
      params: { id: owner.kind === 'policy' ? owner.policyId : 0, action: 'all', entryId },
      query: owner.kind === 'policy' ? policyQuery(owner) : {},
    },
    { enabled: owner.kind === 'policy' },
  );
  const global = useEndpointQuery(
    domainEndpoints.globalGet,
    { params: { action: 'all', id: entryId }, query: owner.kind === 'global' ? globalQuery(owner) : {} },
    { enabled: owner.kind === 'global' },
  );
  return owner.kind === 'policy' ? policy : global;
}

/** The body of a new entry as the form sends it. */
export interface DomainEntryInput {
  domain: string;
  include_subdomains: boolean;
  comment: string;
  log_requests: boolean;
}

/** `POST …/domains/{allow|block}` (spec-notes §7 Domains); the variables name the list. */
export function useCreateDomainEntryMutation(owner: DomainListOwner) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ list, body }: { list: DomainAction; body: DomainEntryInput }) =>
      owner.kind === 'policy'
        ? api.call(domainEndpoints.create, {
            params: { id: owner.policyId, action: list },
            query: policyQuery(owner),
            body,
          })
        : api.call(domainEndpoints.globalCreate, { params: { action: list }, query: globalQuery(owner), body }),
    onSuccess: () => invalidateResources(queryClient, ['domains']),
  });
}

/** `PUT /policies/{id}/domains/all/{entryId}` or `POST /global/domains/all/{id}` (the spec's global update verb). */
export function useUpdateDomainEntryMutation(owner: DomainListOwner, entryId: number) {
  const policy = useEndpointMutation(domainEndpoints.update, {
    params: { id: owner.kind === 'policy' ? owner.policyId : 0, action: 'all', entryId },
    query: owner.kind === 'policy' ? policyQuery(owner) : {},
  });
  const global = useEndpointMutation(domainEndpoints.globalUpdate, {
    params: { action: 'all', id: entryId },
    query: owner.kind === 'global' ? globalQuery(owner) : {},
  });
  return owner.kind === 'policy' ? policy : global;
}

/** Deletes entries as ONE `POST /batch` of `DELETE …/domains/all/{entryId}` (spec-notes §7 Batch, Domains). */
export function useDeleteDomainEntriesMutation(owner: DomainListOwner) {
  const batch = useBatchMutation({ invalidates: ['domains'] });
  const items = (ids: readonly number[]) =>
    owner.kind === 'policy'
      ? deleteItems(domainEndpoints.remove, ids, (entryId) => ({
          params: { id: owner.policyId, action: 'all' as const, entryId },
          query: policyQuery(owner),
        }))
      : deleteItems(domainEndpoints.globalRemove, ids, (id) => ({
          params: { action: 'all' as const, id },
          query: globalQuery(owner),
        }));
  return { isPending: batch.isPending, run: (ids: readonly number[]) => batch.mutateAsync(items(ids)) };
}

/**
 * `POST …/domains/import/{allow|block}[?overwrite=true]`, the file as multipart field `csv` (spec-notes §7
 * Domains): all or nothing; a bad file answers 400 with `fields.csv` naming the first bad line.
 */
export function useImportDomainsMutation(owner: DomainListOwner) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ list, file, overwrite }: { list: DomainAction; file: File; overwrite: boolean }) => {
      const form = new FormData();
      form.set('csv', file, file.name);
      const flag = { overwrite: overwrite ? ('true' as const) : ('false' as const) };
      return owner.kind === 'policy'
        ? api.call(domainEndpoints.import, {
            params: { id: owner.policyId, action: list },
            query: { ...policyQuery(owner), ...flag },
            form,
          })
        : api.call(domainEndpoints.globalImport, {
            params: { action: list },
            query: { ...globalQuery(owner), ...flag },
            form,
          });
    },
    onSuccess: () => invalidateResources(queryClient, ['domains']),
  });
}

/** A CSV export: the text and the file name the server gave it (`Content-Disposition`, spec-notes §9 DD-MM-YYYY). */
export interface DomainExport {
  text: string;
  fileName: string;
}

/** `GET …/domains/{kind}/export` (spec-notes §7 Domains): the list as CSV, named as the server names it. */
export function useExportDomainsMutation(owner: DomainListOwner) {
  const api = useApi();
  return useMutation({
    mutationFn: async (kind: DomainListKind): Promise<DomainExport> => {
      let disposition: string | null = null;
      const onHeaders = (h: Headers) => {
        disposition = h.get('content-disposition');
      };
      const text =
        owner.kind === 'policy'
          ? await api.call(domainEndpoints.export, {
              params: { id: owner.policyId, action: kind },
              query: policyQuery(owner),
              onHeaders,
            })
          : await api.call(domainEndpoints.globalExport, {
              params: { action: kind },
              query: globalQuery(owner),
              onHeaders,
            });
      return { text, fileName: fileNameFromDisposition(disposition) ?? domainExportFileName(kind, Date.now()) };
    },
  });
}

/** `DELETE /policies/{id}/domains/all/{entryId}` or `DELETE /global/domains/all/{id}` (spec-notes §7 Domains): the entry page's delete. */
export function useDeleteDomainEntryMutation(owner: DomainListOwner, entryId: number) {
  const policy = useEndpointMutation(domainEndpoints.remove, {
    params: { id: owner.kind === 'policy' ? owner.policyId : 0, action: 'all', entryId },
    query: owner.kind === 'policy' ? policyQuery(owner) : {},
  });
  const global = useEndpointMutation(domainEndpoints.globalRemove, {
    params: { action: 'all', id: entryId },
    query: owner.kind === 'global' ? globalQuery(owner) : {},
  });
  return owner.kind === 'policy' ? policy : global;
}
