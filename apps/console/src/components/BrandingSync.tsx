import { Role, uiEndpoints } from '@cordon/shared';
import { useEffect } from 'react';
import { useEndpointQuery } from '../api/hooks.ts';
import { useSession, useSessionStore } from '../session/context.ts';
import { mspScope } from '../session/scope.ts';

/**
 * Keeps the stored `ui {logo, title}` (spec-notes §3) equal to the branding the signed-in admin works
 * under (spec-notes §2: the page title is '{ui title} | {page}'; the header shows the logo): the selected
 * MSP's for a system admin in the MSP or customer area, else the system's; the own MSP's for an
 * MSP admin and a customer admin (its MSP's, else the system's). A sales admin keeps the default.
 * Renders nothing.
 */
export function BrandingSync({ area }: { area: string }) {
  const session = useSession();
  const store = useSessionStore();
  const role = session.claims?.vue_role;
  const mspId = role === Role.System && area !== 'system' ? mspScope(session) : null;
  const enabled = role === Role.System || role === Role.Msp || role === Role.Customer;
  const query = useEndpointQuery(
    uiEndpoints.getInterface,
    { query: mspId === null ? {} : { msp_id: mspId } },
    { enabled, staleTime: 60_000 },
  );
  const logo = query.data?.effective_logo ?? undefined;
  const title = query.data?.effective_title ?? undefined;
  const ready = query.isSuccess;
  useEffect(() => {
    if (ready) store.setUi({ ...(logo ? { logo } : {}), ...(title ? { title } : {}) });
  }, [ready, logo, title, store]);
  return null;
}
