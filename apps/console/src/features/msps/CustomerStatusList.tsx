import {
  type CustomerStatus,
  type CustomerStatusList as CustomerStatusPage,
  type CustomerStatusSortKey,
  FILTERING_LEVELS,
  type FilteringLevel,
} from '@cordon/shared';
import { ActionIcon, Anchor, Box, Button, Group, Pagination, Stack, Text } from '@mantine/core';
import { IconInfoCircle, IconMail, IconShieldCheck } from '@tabler/icons-react';
import type { UseQueryResult } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { DataTable, type ListState } from '../../components/DataTable.tsx';
import { DeferredSelect } from '../../components/Deferred.tsx';
import { useFilteringLevelLabel } from '../../components/filteringLevelLabel.ts';
import { type Formatter, useFormat } from '../../components/format.ts';
import { QueryState } from '../../components/QueryState.tsx';
import type { RowSelection } from '../../components/RowSelection.tsx';
import { showErrorToast, showSuccessToast } from '../../components/toast.ts';
import { useMspId } from '../../session/context.ts';
import { CUSTOMER_STATUS_PAGE_SIZE, useApplyLevelMutation, useSendReportsMutation } from './customerStatusApi.ts';
import { MspWideActions } from './MspWideActions.tsx';

/** A day in ms: a customer whose last traffic is older is "silent" (docs/api.md "Stats"). */
const DAY_MS = 86_400_000;

/** A customer's state at a glance: traffic in the last hour, traffic in the last day, or none. */
export type TrafficState = 'active' | 'quiet' | 'silent';

/** The traffic state of `c` as of `asOf` (ISO): active with last-hour requests, quiet within a day, else silent. */
export function trafficState(c: Pick<CustomerStatus, 'requests_last_hour' | 'last_seen'>, asOf: string): TrafficState {
  if (c.requests_last_hour > 0) return 'active';
  if (c.last_seen !== null && Date.parse(asOf) - Date.parse(c.last_seen) < DAY_MS) return 'quiet';
  return 'silent';
}

const STATE_COLOURS: Readonly<Record<TrafficState, string>> = { active: 'teal', quiet: 'yellow', silent: 'red' };

/** "x of y" silent, orange when any is silent; a dash when there is none at all. */
function SilentCount({ silent, total, fmt, label }: { silent: number; total: number; fmt: Formatter; label: string }) {
  if (total === 0) return <Text size="sm">—</Text>;
  return (
    <Text size="sm" c={silent > 0 ? 'orange.9' : undefined} fw={silent > 0 ? 600 : undefined} aria-label={label}>
      {`${fmt.number(silent)} / ${fmt.number(total)}`}
    </Text>
  );
}

/**
 * The MSP overview's customer list (issue 29 "100 customers at a glance"): per customer its
 * traffic state and last traffic, last-hour requests, today's requests and blocked, locations and
 * devices without traffic (devices: its licence use), and default protection level; sortable by
 * every figure, with a checkbox per row for the bulk actions. The name selects the customer and
 * opens its area (`onOpen`).
 */
export function CustomerStatusTable(props: {
  query: UseQueryResult<CustomerStatusPage>;
  list: ListState<CustomerStatusSortKey>;
  selection: RowSelection;
  onOpen: (c: CustomerStatus) => void;
}) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const levelLabel = useFilteringLevelLabel();
  const { list } = props;
  return (
    <QueryState query={props.query}>
      {(page) => {
        const pages = Math.ceil(page.total / CUSTOMER_STATUS_PAGE_SIZE);
        return (
          <>
            <DataTable
              rows={page.data}
              list={list}
              testId="customers-table"
              minWidth={980}
              rowKey={(c) => c.id}
              select={{ selection: props.selection, rowId: (c) => c.id, rowName: (c) => c.name }}
              emptyText={list.filter ? t('customerStatus.noMatch') : t('customerStatus.empty')}
              columns={[
                {
                  key: 'name',
                  header: t('customerStatus.customer'),
                  sortKey: 'name',
                  td: { style: { whiteSpace: 'nowrap' } },
                  render: (c) => (
                    <Anchor component={Link} to="/customer/overview" onClick={() => props.onOpen(c)} fw={500}>
                      {c.name}
                    </Anchor>
                  ),
                },
                {
                  key: 'state',
                  header: t('customerStatus.status'),
                  sortKey: 'last_seen',
                  td: { style: { whiteSpace: 'nowrap' } },
                  render: (c) => {
                    const state = trafficState(c, page.as_of);
                    return (
                      <Stack gap={2}>
                        <Group gap={6} wrap="nowrap">
                          <Box
                            w={8}
                            h={8}
                            style={{
                              borderRadius: '50%',
                              background: `var(--mantine-color-${STATE_COLOURS[state]}-6)`,
                            }}
                            aria-hidden
                          />
                          <Text size="sm" fw={600} data-state={state}>
                            {t(`customerStatus.states.${state}`)}
                          </Text>
                        </Group>
                        <Text size="xs" c="dimmed">
                          {c.last_seen === null
                            ? t('customerStatus.neverSeen')
                            : t('customerStatus.lastSeen', { at: fmt.dateTime(c.last_seen) })}
                        </Text>
                      </Stack>
                    );
                  },
                },
                {
                  key: 'lastHour',
                  header: t('customerStatus.lastHour'),
                  sortKey: 'requests_last_hour',
                  td: { ta: 'right' },
                  render: (c) => fmt.number(c.requests_last_hour),
                },
                {
                  key: 'today',
                  header: t('customerStatus.requestsToday'),
                  sortKey: 'requests_today',
                  td: { ta: 'right' },
                  render: (c) => fmt.number(c.requests_today),
                },
                {
                  key: 'blocked',
                  header: t('customerStatus.blockedToday'),
                  sortKey: 'blocked_today',
                  td: { ta: 'right' },
                  render: (c) => fmt.number(c.blocked_today),
                },
                {
                  key: 'locations',
                  header: t('customerStatus.silentLocations'),
                  sortKey: 'locations_silent',
                  render: (c) => (
                    <SilentCount
                      silent={c.locations_silent}
                      total={c.locations}
                      fmt={fmt}
                      label={t('customerStatus.silentOf', { silent: c.locations_silent, total: c.locations })}
                    />
                  ),
                },
                {
                  key: 'devices',
                  header: t('customerStatus.silentDevices'),
                  sortKey: 'devices_silent',
                  render: (c) => (
                    <SilentCount
                      silent={c.devices_silent}
                      total={c.devices}
                      fmt={fmt}
                      label={t('customerStatus.silentOf', { silent: c.devices_silent, total: c.devices })}
                    />
                  ),
                },
                {
                  key: 'level',
                  header: t('customerStatus.level'),
                  sortKey: 'level',
                  td: { style: { whiteSpace: 'nowrap' } },
                  render: (c) =>
                    c.level && (FILTERING_LEVELS as readonly string[]).includes(c.level) ? (
                      <Text size="sm">{levelLabel(c.level as FilteringLevel)}</Text>
                    ) : (
                      '—'
                    ),
                },
                {
                  key: 'details',
                  header: t('customerStatus.details'),
                  w: 72,
                  render: (c) => (
                    <ActionIcon
                      component={Link}
                      to={`/msp/overview/${c.id}`}
                      variant="subtle"
                      aria-label={t('customerStatus.details')}
                      title={t('customerStatus.detailsOf', { name: c.name })}
                    >
                      <IconInfoCircle size={18} aria-hidden />
                    </ActionIcon>
                  ),
                },
              ]}
            />
            <Group justify="space-between" mt="sm" wrap="wrap">
              <Text size="sm" c="dimmed" data-testid="customer-status-total">
                {t('customerStatus.total', { count: page.total, total: fmt.number(page.total) })}
              </Text>
              {pages > 1 ? (
                <Pagination
                  total={pages}
                  value={list.page}
                  onChange={list.setPage}
                  size="sm"
                  getControlProps={(control) => ({ 'aria-label': t(`customerStatus.pageControls.${control}`) })}
                  getItemProps={(p) => ({ 'aria-label': t('customerStatus.page', { page: p }) })}
                />
              ) : null}
            </Group>
          </>
        );
      }}
    </QueryState>
  );
}

/**
 * The bulk actions on the selected customers (issue 29): apply a protection level to their default
 * policies, and send their scheduled reports now. Each is one or two `/batch` calls; a toast says
 * what was done. Next to them the MSP-wide actions (a global entry, enforcing 2FA), which the API
 * only offers per MSP.
 */
export function CustomerBulkActions({ rows, selection }: { rows: readonly CustomerStatus[]; selection: RowSelection }) {
  const { t } = useTranslation();
  const levelLabel = useFilteringLevelLabel();
  const mspId = useMspId();
  const [level, setLevel] = useState<FilteringLevel | null>(null);
  const apply = useApplyLevelMutation();
  const send = useSendReportsMutation();
  const chosen = rows.filter((r) => selection.isSelected(r.id));
  const count = chosen.length;

  const onApply = async () => {
    if (!level) return;
    const policyIds = chosen.flatMap((c) => (c.default_policy_id === null ? [] : [c.default_policy_id]));
    try {
      const outcome = await apply.mutateAsync({ policyIds, level });
      if (outcome.failed.length > 0) {
        showErrorToast(t('customerStatus.levelFailed', { count: outcome.failed.length }));
      } else {
        showSuccessToast(
          t('customerStatus.levelApplied', { count: outcome.succeeded.length, level: levelLabel(level) }),
        );
      }
      selection.clear();
    } catch {
      showErrorToast(t('customerStatus.actionFailed'));
    }
  };

  const onSend = async () => {
    try {
      const outcome = await send.mutateAsync(chosen.map((c) => c.id));
      const parts = [t('customerStatus.reportsSent', { count: outcome.sent })];
      if (outcome.withoutReport > 0) parts.push(t('customerStatus.reportsMissing', { count: outcome.withoutReport }));
      if (outcome.failed > 0) {
        parts.push(t('customerStatus.reportsFailed', { count: outcome.failed }));
        showErrorToast(parts.join(' '));
      } else showSuccessToast(parts.join(' '));
    } catch {
      showErrorToast(t('customerStatus.actionFailed'));
    }
  };

  return (
    <Group gap="xs" wrap="wrap" role="group" aria-label={t('customerStatus.bulkLabel', { count })}>
      <DeferredSelect
        aria-label={t('customerStatus.levelToApply')}
        placeholder={t('customerStatus.levelToApply')}
        data={FILTERING_LEVELS.filter((l) => l !== 'custom').map((l) => ({ value: l, label: levelLabel(l) }))}
        value={level}
        onChange={(v) => setLevel(v as FilteringLevel | null)}
        w={{ base: '100%', xs: 200 }}
        size="sm"
        data-testid="bulk-level"
      />
      <Button
        variant="light"
        leftSection={<IconShieldCheck size={16} aria-hidden />}
        disabled={count === 0 || level === null}
        loading={apply.isPending}
        onClick={onApply}
      >
        {t('customerStatus.applyLevel', { count })}
      </Button>
      <Button
        variant="light"
        leftSection={<IconMail size={16} aria-hidden />}
        disabled={count === 0}
        loading={send.isPending}
        onClick={onSend}
      >
        {t('customerStatus.sendReports', { count })}
      </Button>
      <MspWideActions mspId={mspId} />
    </Group>
  );
}
