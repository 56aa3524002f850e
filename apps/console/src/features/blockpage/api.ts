import { type BlockPageQuery, blockPageEndpoints } from '@cordon/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../api/context.ts';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';
import { invalidateResources } from '../../api/queryKeys.ts';

/**
 * Whose block page a page edits (spec-notes §7 `/ui/blockpage`): `{ user_id }` a customer's, `{ msp_id }`
 * an MSP's, `{}` the system's.
 */
export type BlockPageOwner = BlockPageQuery;

/** `GET /ui/blockpage` (spec-notes §7 UI and tools) for `owner`: its own branding (`is_set` false: none). */
export function useBlockPageQuery(owner: BlockPageOwner) {
  return useEndpointQuery(blockPageEndpoints.get, { query: owner });
}

/** `POST /ui/blockpage` (spec-notes §7) for `owner`: replaces its title, message, footer and support contact. */
export function useSetBlockPageMutation(owner: BlockPageOwner) {
  return useEndpointMutation(blockPageEndpoints.set, { query: owner });
}

/** `DELETE /ui/blockpage` (spec-notes §7) for `owner`: the next level's branding applies again. */
export function useDeleteBlockPageMutation(owner: BlockPageOwner) {
  return useEndpointMutation(blockPageEndpoints.remove, { query: owner });
}

/**
 * `POST /ui/blockpage/logo` (spec-notes §7, the multipart variant; field `logo`) for `owner`: uploads its
 * logo. Rejects with the API's error (the spec's size, dimension or type message on field `logo`).
 */
export function useUploadBlockPageLogoMutation(owner: BlockPageOwner) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (file: File) => {
      const form = new FormData();
      form.set('logo', file, file.name);
      return api.call(blockPageEndpoints.setLogo, { query: owner, form });
    },
    onSuccess: () => invalidateResources(queryClient, ['blockpage']),
  });
}

/** `DELETE /ui/blockpage/logo` (spec-notes §7) for `owner`: the next level's logo shows again. */
export function useDeleteBlockPageLogoMutation(owner: BlockPageOwner) {
  return useEndpointMutation(blockPageEndpoints.removeLogo, { query: owner });
}
