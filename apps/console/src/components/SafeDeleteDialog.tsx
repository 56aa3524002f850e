import type { Dependants, DependantsResponse } from '@cordon/shared';
import { Alert, Button, Group, List, Loader, Stack, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DeferredModal, DeferredSelect } from './Deferred.tsx';

/** One item a delete dialog names: its id and its name as shown in the list. */
export interface DeleteItem {
  readonly id: number;
  readonly name: string;
}

/**
 * Where the dependants of an item in use go (docs/api.md "Deletes of things in use"): a select of
 * `options` (another policy, group or device exception; for groups and exceptions also "detach"),
 * labelled `label`, required once anything selected is in use.
 */
export interface MoveChoice {
  readonly label: string;
  readonly options: ReadonlyArray<{ readonly value: string; readonly label: string }>;
}

/** What the user chose in a delete dialog: the move target's value (null when nothing is in use). */
export interface DeleteChoice {
  readonly moveTo: string | null;
}

/** The dependants of each item, read when the dialog opens (`fetch` is one `…/dependants` GET). */
function useItemDependants(
  key: string,
  items: readonly DeleteItem[],
  fetch: ((id: number) => Promise<DependantsResponse>) | undefined,
  enabled: boolean,
) {
  return useQuery({
    queryKey: ['dependants', key, items.map((i) => i.id)],
    enabled: enabled && fetch !== undefined && items.length > 0,
    staleTime: 0,
    gcTime: 0,
    queryFn: async () => {
      const out: Array<{ item: DeleteItem; dependants: Dependants }> = [];
      // One after the other: a page holds at most a hundred rows, and the API budget counts each read.
      for (const item of items) {
        const answer = fetch ? await fetch(item.id) : { in_use: false, dependants: {} };
        out.push({ item, dependants: answer.dependants });
      }
      return out;
    },
  });
}

/** How many items a delete dialog names before "and N more". */
export const NAMED_ITEMS = 5;

/**
 * The items a delete dialog names: the first {@link NAMED_ITEMS} in list order, and how many more
 * were selected (issue 29: a bulk confirmation names the items, not only their count).
 */
export function namedItems(items: readonly DeleteItem[]): { shown: readonly DeleteItem[]; more: number } {
  return { shown: items.slice(0, NAMED_ITEMS), more: Math.max(0, items.length - NAMED_ITEMS) };
}

/** The sum of every item's dependants, kind by kind (names: the first five met). */
export function totalDependants(all: readonly Dependants[]): Dependants {
  const total: Record<string, { count: number; names: string[] }> = {};
  for (const d of all) {
    for (const [kind, k] of Object.entries(d)) {
      const t = total[kind] ?? { count: 0, names: [] };
      t.count += k.count;
      for (const n of k.names) if (t.names.length < 5 && !t.names.includes(n)) t.names.push(n);
      total[kind] = t;
    }
  }
  return total;
}

/** `2 locations (Office, Lab), 1 group (Staff)`: one kind a line, with "and N more" past the names. */
function DependantLines({ dependants }: { dependants: Dependants }) {
  const { t } = useTranslation();
  return (
    <List size="sm" spacing={2}>
      {Object.entries(dependants).map(([kind, k]) => {
        const more = k.count - k.names.length;
        const names = k.names.length > 0 ? k.names.join(', ') : '';
        return (
          <List.Item key={kind}>
            {t(`safeDelete.kinds.${kind}`, { count: k.count, defaultValue: `${k.count} ${kind}` })}
            {names ? ` (${names}${more > 0 ? `, ${t('safeDelete.more', { count: more })}` : ''})` : ''}
          </List.Item>
        );
      })}
    </List>
  );
}

/**
 * The confirmation of a delete that knows what it breaks (issue 29; docs/api.md "Deletes of things in
 * use"): names the items (the first five, then "and N more"), says what stops working
 * (`consequence`), reads what depends on each (`fetchDependants`) and shows the counts and
 * first names with the totals; when anything is in use, `move` offers where the dependants go and
 * the Delete button waits for a choice; `confirmName` (cascading customer and MSP deletes) asks to
 * type the name first. `onConfirm` runs the delete with the choice; the dialog closes when it settles.
 */
export function SafeDeleteDialog(props: {
  opened: boolean;
  onClose: () => void;
  title: string;
  /** The question above the list: "Delete the selected items (2)?". */
  text: string;
  items: readonly DeleteItem[];
  /** What stops working once they are gone, in words ("These administrators can no longer sign in…"). */
  consequence?: string;
  /** A key naming the kind of item for the dependants read's cache (`policies`, `groups`…). */
  kind: string;
  fetchDependants?: (id: number) => Promise<DependantsResponse>;
  move?: MoveChoice;
  /** The name to type before a cascading delete (one item only). */
  confirmName?: string;
  confirmLabel?: string;
  loading: boolean;
  onConfirm: (choice: DeleteChoice) => Promise<unknown>;
}) {
  const { t } = useTranslation();
  const [moveTo, setMoveTo] = useState<string | null>(null);
  const [typed, setTyped] = useState('');
  const listId = useId();
  const named = namedItems(props.items);
  const deps = useItemDependants(props.kind, props.items, props.fetchDependants, props.opened);
  const inUse = (deps.data ?? []).filter((d) => Object.values(d.dependants).some((k) => k.count > 0));
  const total = totalDependants(inUse.map((d) => d.dependants));
  const needsMove = props.move !== undefined && inUse.length > 0;
  const nameOk = props.confirmName === undefined || typed === props.confirmName;
  const ready = !deps.isPending || props.fetchDependants === undefined;
  const blocked = !ready || deps.isError || (needsMove && moveTo === null) || !nameOk;
  const close = () => {
    setMoveTo(null);
    setTyped('');
    props.onClose();
  };

  return (
    <DeferredModal opened={props.opened} onClose={close} title={props.title} centered size="lg">
      <Stack gap="sm">
        <Text id={listId}>{props.text}</Text>
        <List size="sm" aria-labelledby={listId} data-testid="delete-items">
          {named.shown.map((item) => (
            <List.Item key={item.id}>{item.name}</List.Item>
          ))}
          {named.more > 0 ? <List.Item>{t('safeDelete.more', { count: named.more })}</List.Item> : null}
        </List>
        {props.consequence ? (
          <Text size="sm" fw={500} data-testid="delete-consequence">
            {props.consequence}
          </Text>
        ) : null}
        {props.fetchDependants && deps.isPending ? (
          <Group gap="xs">
            <Loader size="xs" aria-hidden />
            <Text size="sm">{t('safeDelete.reading')}</Text>
          </Group>
        ) : null}
        {deps.isError ? (
          <Alert color="red" role="alert">
            {t('safeDelete.readFailed')}
          </Alert>
        ) : null}
        {inUse.length > 0 ? (
          <Alert
            color="orange"
            title={t('safeDelete.inUseTitle', { count: inUse.length })}
            data-testid="delete-dependants"
          >
            <Stack gap="xs">
              {inUse.map(({ item, dependants }) => (
                <div key={item.id}>
                  <Text size="sm" fw={600}>
                    {item.name}
                  </Text>
                  <DependantLines dependants={dependants} />
                </div>
              ))}
              {inUse.length > 1 ? (
                <div>
                  <Text size="sm" fw={600}>
                    {t('safeDelete.total')}
                  </Text>
                  <DependantLines dependants={total} />
                </div>
              ) : null}
            </Stack>
          </Alert>
        ) : null}
        {ready && !deps.isError && props.fetchDependants && inUse.length === 0 && props.items.length > 0 ? (
          <Text size="sm" c="dimmed">
            {t('safeDelete.nothingDepends', { count: props.items.length })}
          </Text>
        ) : null}
        {needsMove && props.move ? (
          <DeferredSelect
            label={props.move.label}
            placeholder={t('safeDelete.choose')}
            data={props.move.options.map((o) => ({ value: o.value, label: o.label }))}
            value={moveTo}
            onChange={setMoveTo}
            allowDeselect={false}
            required
            comboboxProps={{ withinPortal: true }}
          />
        ) : null}
        {props.confirmName !== undefined ? (
          <TextInput
            label={t('safeDelete.typeName', { name: props.confirmName })}
            description={t('safeDelete.typeNameHint')}
            value={typed}
            onChange={(e) => setTyped(e.currentTarget.value)}
            autoComplete="off"
            required
          />
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={close} disabled={props.loading}>
            {t('common.cancel')}
          </Button>
          <Button
            color="red"
            data-autofocus={props.confirmName === undefined && !needsMove ? true : undefined}
            loading={props.loading}
            disabled={blocked}
            onClick={() => {
              void props.onConfirm({ moveTo: needsMove ? moveTo : null }).finally(close);
            }}
          >
            {props.confirmLabel ?? t('common.delete')}
          </Button>
        </Group>
      </Stack>
    </DeferredModal>
  );
}
