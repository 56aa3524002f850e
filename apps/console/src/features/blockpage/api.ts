import { type BlockPageQuery, Endpoints } from '@cordon/shared';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';

/**
 * Whose block page a page edits (spec §7 `/ui/blockpage`): `{ user_id }` a customer's, `{ msp_id }`
 * an MSP's, `{}` the system's.
 */
export type BlockPageOwner = BlockPageQuery;

/** `GET /ui/blockpage` (spec §7 UI and tools) for `owner`: its own branding (`is_set` false: none). */
export function useBlockPageQuery(owner: BlockPageOwner) {
  return useEndpointQuery(Endpoints.blockpage.get, { query: owner });
}

/** `POST /ui/blockpage` (spec §7) for `owner`: replaces its title, message, footer and support contact. */
export function useSetBlockPageMutation(owner: BlockPageOwner) {
  return useEndpointMutation(Endpoints.blockpage.set, { query: owner });
}

/** `DELETE /ui/blockpage` (spec §7) for `owner`: the next level's branding applies again. */
export function useDeleteBlockPageMutation(owner: BlockPageOwner) {
  return useEndpointMutation(Endpoints.blockpage.remove, { query: owner });
}
