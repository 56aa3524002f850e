import type { DeviceUsers } from '@cordon/shared';
import { Button, Group, MultiSelect, Paper, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiCallError } from '../../api/client.ts';
import { QueryState } from '../../components/QueryState.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useDeviceUsersQuery, useSetDeviceUsersMutation, useUserChoicesQuery } from './api.ts';

/** The server's message for `field` of a refused write (a 400); null otherwise (the global handling shows it: spec-notes §8). */
function fieldError(error: unknown, field: string): string | null {
  return error instanceof ApiCallError ? (error.fields?.[field] ?? null) : null;
}

/**
 * What {@link DeviceUsersBody} shows and does: the device's bound users (`GET
 * /users/{id}/devices/{deviceId}/users`), the customer's users to choose from, and the save call.
 */
export interface DeviceUsersBodyProps {
  bound: DeviceUsers;
  choices: ReadonlyArray<{ id: number; name: string }>;
  /** Sends the whole set (`PUT …/users`); rejects with the server's error. */
  save: (userIds: number[]) => Promise<unknown>;
  pending: boolean;
}

/**
 * The users the device may assert (docs/security.md "Identity claims"): the bound users with who
 * bound them, a labelled choice of the customer's users, and the refused heartbeat user reports.
 */
export function DeviceUsersBody({ bound, choices, save, pending }: DeviceUsersBodyProps) {
  const { t } = useTranslation();
  const [picked, setPicked] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const value = picked ?? bound.users.map((u) => String(u.id));
  const known = new Set(bound.users.map((u) => u.id));
  const data = [
    ...bound.users.map((u) => ({ value: String(u.id), label: u.name })),
    ...choices.filter((u) => !known.has(u.id)).map((u) => ({ value: String(u.id), label: u.name })),
  ];
  return (
    <Stack>
      <Title order={2} size="h4">
        {t('devices.usersTitle')}
      </Title>
      <Text size="sm" c="dimmed">
        {t('devices.usersHelp', { cap: bound.agent_user_cap })}
      </Text>
      {bound.users.length === 0 ? (
        <Text size="sm">{t('devices.usersNone')}</Text>
      ) : (
        <Stack gap={2} data-testid="device-users">
          {bound.users.map((u) => (
            <Text key={u.id} size="sm">
              {t('devices.usersSource', {
                name: u.name,
                source: t(u.source === 'admin' ? 'devices.sourceAdmin' : 'devices.sourceAgent'),
              })}
            </Text>
          ))}
        </Stack>
      )}
      <MultiSelect
        label={t('devices.usersField')}
        data={data}
        value={value}
        onChange={(v) => {
          setPicked(v);
          setError(null);
        }}
        error={error}
        searchable
      />
      <Group justify="space-between">
        <Text size="sm" c="dimmed">
          {t('devices.usersRefused', { count: bound.user_reports_refused })}
        </Text>
        <Button
          loading={pending}
          disabled={picked === null}
          onClick={() =>
            save(value.map(Number)).then(
              () => {
                setPicked(null);
                showSuccessToast(t('devices.usersSaved'));
              },
              (e: unknown) => setError(fieldError(e, 'user_ids')),
            )
          }
        >
          {t('common.save')}
        </Button>
      </Group>
    </Stack>
  );
}

/** {@link DeviceUsersBody} for device `deviceId`, with its queries and the save mutation. */
export function DeviceUsersPanel({ customerId, deviceId }: { customerId: number; deviceId: number }) {
  const bound = useDeviceUsersQuery(customerId, deviceId);
  const choices = useUserChoicesQuery(customerId);
  const save = useSetDeviceUsersMutation(customerId, deviceId);
  return (
    <Paper withBorder p="md" radius="md">
      <QueryState query={bound}>
        {(b) => (
          <DeviceUsersBody
            bound={b}
            choices={choices.data?.data ?? []}
            save={(ids) => save.mutateAsync({ user_ids: ids })}
            pending={save.isPending}
          />
        )}
      </QueryState>
    </Paper>
  );
}
