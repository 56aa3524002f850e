import { customerEndpoints, mspEndpoints, Role } from '@cordon/shared';
import { type ComboboxItem, type ComboboxItemGroup, Group, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useEndpointQuery } from '../api/hooks.ts';
import { useSession, useSessionStore } from '../session/context.ts';
import { customerScope, mspScope } from '../session/scope.ts';
import { DeferredSelect } from './Deferred.tsx';
import { setTenantTimeZone } from './format.ts';
import { SEARCH_DEBOUNCE_MS } from './search.ts';

/**
 * How many names a switcher fetches at once: every tenant of an MSP with up to this many (issue 29
 * "the switchers list every tenant"); typing narrows the list on the server (spec-notes §9 `filter`).
 */
const SWITCHER_LIMIT = 1000;

/** How many recently chosen tenants a switcher offers first. */
const RECENT_COUNT = 5;

/** A tenant as a switcher lists it. */
interface Tenant {
  id: number;
  name: string;
}

/**
 * The recently chosen tenants of one switcher, newest first, kept in local storage under `key`
 * (`recentMsps`, `recentCustomers:<mspId>`): a console preference like the spec-notes §3 keys.
 */
export function readRecent(storage: Pick<Storage, 'getItem'>, key: string): Tenant[] {
  try {
    const value: unknown = JSON.parse(storage.getItem(key) ?? '[]');
    if (!Array.isArray(value)) return [];
    return value
      .filter(
        (v): v is Tenant => typeof v === 'object' && v !== null && Number.isInteger(v.id) && typeof v.name === 'string',
      )
      .slice(0, RECENT_COUNT);
  } catch {
    return [];
  }
}

/** Puts `tenant` first in the recent list under `key` (at most {@link RECENT_COUNT}). */
export function rememberRecent(storage: Pick<Storage, 'getItem' | 'setItem'>, key: string, tenant: Tenant): void {
  const rest = readRecent(storage, key).filter((r) => r.id !== tenant.id);
  storage.setItem(key, JSON.stringify([tenant, ...rest].slice(0, RECENT_COUNT)));
}

/**
 * The choices of a switcher: while nothing is typed, the recent tenants first (those still in the
 * list), then every other one; when typing, the server's matches. The current selection is always
 * there, even when it does not match.
 */
export function switcherData(
  rows: readonly Tenant[],
  current: Tenant | undefined,
  recent: readonly Tenant[],
  searching: boolean,
  labels: { recent: string; all: string },
): Array<ComboboxItem | ComboboxItemGroup<ComboboxItem>> {
  const all = current && !rows.some((r) => r.id === current.id) ? [current, ...rows] : [...rows];
  const item = (r: Tenant): ComboboxItem => ({ value: String(r.id), label: r.name });
  if (searching) return all.map(item);
  const known = new Set(all.map((r) => r.id));
  const first = recent.filter((r) => known.has(r.id) || r.id === current?.id);
  if (first.length === 0) return all.map(item);
  const firstIds = new Set(first.map((r) => r.id));
  const names = new Map(all.map((r) => [r.id, r.name]));
  return [
    { group: labels.recent, items: first.map((r) => item({ id: r.id, name: names.get(r.id) ?? r.name })) },
    { group: labels.all, items: all.filter((r) => !firstIds.has(r.id)).map(item) },
  ];
}

/**
 * A searchable select of tenants that lists every one each time it opens (the search box starts
 * empty, so the selected name does not filter the list down to itself), recent choices first;
 * arrows, Enter and Escape work as in any select.
 */
function TenantSelect(props: {
  label: string;
  placeholder: string;
  testId: string;
  recentKey: string;
  current: Tenant | undefined;
  fetch: (filter: string) => { rows: Tenant[] };
  onChoose: (tenant: Tenant) => void;
}) {
  const { t } = useTranslation();
  const [search, setSearch] = useState(props.current?.name ?? '');
  const [open, setOpen] = useState(false);
  // Only text typed into the open list narrows it; the selected name shown while closed does not.
  const typed = open ? search.trim() : '';
  const [filter] = useDebouncedValue(typed, SEARCH_DEBOUNCE_MS);
  const { rows } = props.fetch(filter);
  const recent = readRecent(window.localStorage, props.recentKey);
  const currentName = props.current?.name ?? '';
  // The closed select shows the selected name.
  useEffect(() => {
    if (!open) setSearch(currentName);
  }, [open, currentName]);
  return (
    <DeferredSelect
      aria-label={props.label}
      placeholder={props.current?.name ?? props.placeholder}
      searchable
      searchValue={search}
      onSearchChange={setSearch}
      onDropdownOpen={() => {
        setOpen(true);
        setSearch('');
      }}
      onDropdownClose={() => setOpen(false)}
      // The server filtered already; the select filters only what it has while the server answers.
      filter={({ options }) => options}
      nothingFoundMessage={t('common.noMatch')}
      data={switcherData(rows, props.current, recent, typed !== '', {
        recent: t('app.recentTenants'),
        all: t('app.allTenants'),
      })}
      value={props.current ? String(props.current.id) : null}
      onChange={(value, option) => {
        if (!value || !option) return;
        const tenant = { id: Number(value), name: option.label };
        rememberRecent(window.localStorage, props.recentKey, tenant);
        setOpen(false);
        props.onChoose(tenant);
      }}
      size="xs"
      w={{ base: '100%', sm: 220 }}
      maxDropdownHeight={360}
      comboboxProps={{ withinPortal: true }}
      data-testid={props.testId}
    />
  );
}

/**
 * The system admin's MSP switcher (spec-notes §3/§4: role 1 acts on the selected MSP, stored separately):
 * choosing one selects it, clears the selected customer and opens the MSP overview.
 */
function MspSwitcher() {
  const { t } = useTranslation();
  const session = useSession();
  const store = useSessionStore();
  const navigate = useNavigate();
  const selected = session.selectedMsp;
  const current = useEndpointQuery(mspEndpoints.get, { params: { id: selected ?? 0 } }, { enabled: selected !== null });
  const useRows = (filter: string) => {
    const list = useEndpointQuery(
      mspEndpoints.list,
      {
        query: { limit: SWITCHER_LIMIT, offset: 0, sortkey: 'name', sortdir: 'asc', ...(filter ? { filter } : {}) },
      },
      { placeholderData: keepPreviousData },
    );
    return { rows: (list.data?.data ?? []).map((m) => ({ id: m.id, name: m.name })) };
  };
  return (
    <TenantSelect
      label={t('app.switchMsp')}
      placeholder={t('app.selectMsp')}
      testId="msp-switcher"
      recentKey="recentMsps"
      current={current.data ? { id: current.data.id, name: current.data.name } : undefined}
      fetch={useRows}
      onChoose={(m) => {
        store.selectMsp(m.id);
        store.selectCustomer(null);
        void navigate('/msp/overview');
      }}
    />
  );
}

/**
 * The customer switcher of roles 1 and 3: the MSP in scope's customers; choosing one selects it and
 * opens the same page for that customer when in the customer area (else the customer overview), so
 * the admin always sees which customer is being edited.
 */
function CustomerSwitcher({ mspId }: { mspId: number }) {
  const { t } = useTranslation();
  const session = useSession();
  const store = useSessionStore();
  const navigate = useNavigate();
  const selected = session.selectedCustomer;
  const current = useEndpointQuery(
    customerEndpoints.get,
    { params: { id: selected ?? 0 } },
    { enabled: selected !== null },
  );
  const useRows = (filter: string) => {
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
    return { rows: (list.data?.data ?? []).map((c) => ({ id: c.id, name: c.accountName })) };
  };
  const currentRow =
    current.data && current.data.msp_id === mspId ? { id: current.data.id, name: current.data.accountName } : undefined;
  return (
    <TenantSelect
      label={t('app.switchCustomer')}
      placeholder={t('app.selectCustomer')}
      testId="customer-switcher"
      recentKey={`recentCustomers:${mspId}`}
      current={currentRow}
      fetch={useRows}
      onChoose={(c) => {
        store.selectCustomer(c.id);
        // A customer page's ids belong to the previous customer: go to its section's list page.
        const path = window.location.pathname;
        const section = path.startsWith('/customer/') ? path.split('/').slice(0, 4).join('/') : '/customer/overview';
        void navigate(/\/\d+$/.test(section) ? '/customer/overview' : section);
      }}
    />
  );
}

/**
 * Publishes the time zone dates are shown in when the profile names none (issue 29): in the
 * customer area the customer's (else its MSP's), elsewhere the MSP's; the system's none.
 */
export function TenantZoneSync({ inCustomerArea }: { inCustomerArea: boolean }) {
  const session = useSession();
  const mspId = mspScope(session);
  const customerId = customerScope(session);
  const wantCustomer = inCustomerArea && customerId !== null;
  const msp = useEndpointQuery(mspEndpoints.get, { params: { id: mspId ?? 0 } }, { enabled: mspId !== null });
  const customer = useEndpointQuery(
    customerEndpoints.get,
    { params: { id: customerId ?? 0 } },
    { enabled: wantCustomer },
  );
  const zone = (wantCustomer ? customer.data?.timezone : undefined) || msp.data?.timezone || undefined;
  useEffect(() => setTenantTimeZone(zone), [zone]);
  return null;
}

/** The customer admin's header: the name of the customer it manages (issue 29). */
export function CustomerName() {
  const { t } = useTranslation();
  const customerId = customerScope(useSession());
  const customer = useEndpointQuery(
    customerEndpoints.get,
    { params: { id: customerId ?? 0 } },
    { enabled: customerId !== null },
  );
  if (!customer.data) return null;
  return (
    <Text size="sm" fw={600} truncate maw={240} data-testid="header-customer" title={customer.data.accountName}>
      <Text span size="sm" c="dimmed" visibleFrom="sm">
        {t('app.customerLabel')}{' '}
      </Text>
      {customer.data.accountName}
    </Text>
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
