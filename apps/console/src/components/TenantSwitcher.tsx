import { customerEndpoints, mspEndpoints, Role } from '@cordon/shared';
import { Group, Select } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useEndpointQuery } from '../api/hooks.ts';
import { useSession, useSessionStore } from '../session/context.ts';
import { mspScope } from '../session/scope.ts';
import { SEARCH_DEBOUNCE_MS } from './search.ts';

/** How many names a switcher offers at once; typing narrows the list on the server (spec §9 `filter`). */
const SWITCHER_LIMIT = 50;

/** The choices of a switcher: the page of matches plus the current selection, even when it does not match. */
function options(
  rows: readonly { id: number; name: string }[],
  current: { id: number; name: string } | undefined,
): { value: string; label: string }[] {
  const all = current && !rows.some((r) => r.id === current.id) ? [current, ...rows] : rows;
  return all.map((r) => ({ value: String(r.id), label: r.name }));
}

/**
 * The system admin's MSP switcher (spec §3/§4: role 1 acts on the selected MSP, stored separately):
 * a searchable select of MSPs; choosing one selects it, clears the selected customer and opens the
 * MSP overview.
 */
function MspSwitcher() {
  const { t } = useTranslation();
  const session = useSession();
  const store = useSessionStore();
  const navigate = useNavigate();
  const [search, setSearch] = useState('');
  const [filter] = useDebouncedValue(search.trim(), SEARCH_DEBOUNCE_MS);
  const selected = session.selectedMsp;
  const list = useEndpointQuery(
    mspEndpoints.list,
    { query: { limit: SWITCHER_LIMIT, offset: 0, sortkey: 'name', sortdir: 'asc', ...(filter ? { filter } : {}) } },
    { placeholderData: keepPreviousData },
  );
  const current = useEndpointQuery(mspEndpoints.get, { params: { id: selected ?? 0 } }, { enabled: selected !== null });
  return (
    <Select
      aria-label={t('app.switchMsp')}
      placeholder={t('app.selectMsp')}
      searchable
      nothingFoundMessage={t('common.noMatch')}
      onSearchChange={setSearch}
      data={options(list.data?.data ?? [], current.data)}
      value={selected === null ? null : String(selected)}
      onChange={(value) => {
        if (!value) return;
        store.selectMsp(Number(value));
        store.selectCustomer(null);
        void navigate('/msp/overview');
      }}
      size="xs"
      w={{ base: '100%', sm: 200 }}
      comboboxProps={{ withinPortal: true }}
      data-testid="msp-switcher"
    />
  );
}

/**
 * The customer switcher of roles 1 and 3: a searchable select of the MSP in scope's customers;
 * choosing one selects it and opens the same page for that customer when in the customer area
 * (else the customer overview), so the admin always sees which customer is being edited.
 */
function CustomerSwitcher({ mspId }: { mspId: number }) {
  const { t } = useTranslation();
  const session = useSession();
  const store = useSessionStore();
  const navigate = useNavigate();
  const [search, setSearch] = useState('');
  const [filter] = useDebouncedValue(search.trim(), SEARCH_DEBOUNCE_MS);
  const selected = session.selectedCustomer;
  const list = useEndpointQuery(
    customerEndpoints.list,
    {
      query: {
        msp_id: mspId,
        limit: SWITCHER_LIMIT,
        offset: 0,
        sortkey: 'name',
        sortdir: 'asc',
        ...(filter ? { filter } : {}),
      },
    },
    { placeholderData: keepPreviousData },
  );
  const current = useEndpointQuery(
    customerEndpoints.get,
    { params: { id: selected ?? 0 } },
    { enabled: selected !== null },
  );
  const rows = (list.data?.data ?? []).map((c) => ({ id: c.id, name: c.accountName }));
  const currentRow =
    current.data && current.data.msp_id === mspId ? { id: current.data.id, name: current.data.accountName } : undefined;
  return (
    <Select
      aria-label={t('app.switchCustomer')}
      placeholder={t('app.selectCustomer')}
      searchable
      nothingFoundMessage={t('common.noMatch')}
      onSearchChange={setSearch}
      data={options(rows, currentRow)}
      value={currentRow ? String(currentRow.id) : null}
      onChange={(value) => {
        if (!value) return;
        store.selectCustomer(Number(value));
        // A customer page's ids belong to the previous customer: go to its section's list page.
        const path = window.location.pathname;
        const section = path.startsWith('/customer/') ? path.split('/').slice(0, 4).join('/') : '/customer/overview';
        void navigate(/\/\d+$/.test(section) ? '/customer/overview' : section);
      }}
      size="xs"
      w={{ base: '100%', sm: 200 }}
      comboboxProps={{ withinPortal: true }}
      data-testid="customer-switcher"
    />
  );
}

/**
 * The header's tenant switchers (issue: "a customer switcher in the header"): the MSP switcher for
 * a system admin, the customer switcher for a system admin with an MSP selected and for an MSP
 * admin. Sales and customer admins get none.
 */
export function TenantSwitcher() {
  const session = useSession();
  const role = session.claims?.vue_role;
  if (role !== Role.System && role !== Role.Msp) return null;
  const mspId = mspScope(session);
  return (
    <Group gap="xs" wrap="wrap">
      {role === Role.System ? <MspSwitcher /> : null}
      {mspId !== null ? <CustomerSwitcher key={mspId} mspId={mspId} /> : null}
    </Group>
  );
}
