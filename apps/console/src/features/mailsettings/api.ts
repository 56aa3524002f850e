import { mailEndpoints } from '@cordon/shared';
import { useEndpointMutation, useEndpointQuery } from '../../api/hooks.ts';

/** `msp_id` of `/mail` (spec-notes §7): an MSP's settings; none = the system's. */
export type MailOwnerQuery = { msp_id?: number };

/** `GET /mail` (spec-notes §7 UI and tools). */
export function useMailSettingsQuery(query: MailOwnerQuery) {
  return useEndpointQuery(mailEndpoints.get, { query });
}

/** `POST /mail` (spec-notes §7 UI and tools, with `msp_id`). */
export function useSaveMailSettingsMutation(query: MailOwnerQuery) {
  return useEndpointMutation(mailEndpoints.set, { query });
}

/** `DELETE /mail`: an MSP's own settings go, the system's apply again. */
export function useDeleteMailSettingsMutation(query: MailOwnerQuery) {
  return useEndpointMutation(mailEndpoints.remove, { query });
}

/** `POST /mail/test`: a test e-mail through the settings in force. */
export function useTestMailMutation(query: MailOwnerQuery) {
  return useEndpointMutation(mailEndpoints.test, { query });
}
