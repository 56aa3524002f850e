import { type UiQuery, uiEndpoints } from '@cordon/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../api/context.ts';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';
import { invalidateResources } from '../../api/queryKeys.ts';

/** Which level a page edits (spec-notes §7 "own or with msp_id"): `{ msp_id }` an MSP's, `{}` the caller's own. */
export type UiLevel = UiQuery;

/** `GET /ui/interface` (spec-notes §7 UI and tools): the level's branding and what the console shows there. */
export function useInterfaceQuery(level: UiLevel) {
  return useEndpointQuery(uiEndpoints.getInterface, { query: level });
}

/** The text fields of the interface form, sent as multipart fields (spec-notes §7: "the body is multipart"). */
export interface InterfaceTexts {
  title: string;
  nameservers: string[];
}

/**
 * `POST /ui/interface` (multipart) with `title` and `nameservers` and, when given, the `logo` file.
 * Rejects with the API's error (field messages on `title`, `nameservers`, `logo`).
 */
export function useSetInterfaceMutation(level: UiLevel) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { texts?: InterfaceTexts; logo?: File }) => {
      const form = new FormData();
      if (input.texts) {
        form.set('title', input.texts.title);
        form.set('nameservers', input.texts.nameservers.join('\n'));
      }
      if (input.logo) form.set('logo', input.logo, input.logo.name);
      return api.call(uiEndpoints.setInterface, { query: level, form });
    },
    onSuccess: () => invalidateResources(queryClient, ['ui']),
  });
}

/** `DELETE /ui/interface/logo` (spec-notes §7): the system's logo (or the product mark) shows again. */
export function useDeleteInterfaceLogoMutation(level: UiLevel) {
  return useEndpointMutation(uiEndpoints.removeLogo, { query: level });
}

/** `DELETE /ui/interface/title` (spec-notes §7): the system's title (or the product's) shows again. */
export function useDeleteInterfaceTitleMutation(level: UiLevel) {
  return useEndpointMutation(uiEndpoints.removeTitle, { query: level });
}

/** `GET /ui/support` (spec-notes §7): the level's support contacts (a customer: its MSP's, else the system's). */
export function useSupportQuery(level: UiLevel) {
  return useEndpointQuery(uiEndpoints.getSupport, { query: level });
}

/** `PUT /ui/support` (spec-notes §7): replaces the level's support contacts. */
export function useSetSupportMutation(level: UiLevel) {
  return useEndpointMutation(uiEndpoints.setSupport, { query: level });
}
