import { Constants, type DependantsResponse } from '@cordon/shared';
import { Button, Checkbox, List } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { IconTrash } from '@tabler/icons-react';
import { lazy, Suspense, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DeleteChoice, DeleteItem, MoveChoice } from './SafeDeleteDialog.tsx';
import { showSuccessToast } from './toast.ts';

// The dialog (its dependants read, move choice and confirmation) loads on the button's first click,
// not with the list: issue 28's first-load budget (bench/README.md "Console first load").
const SafeDeleteDialog = lazy(() => import('./SafeDeleteDialog.tsx').then((m) => ({ default: m.SafeDeleteDialog })));

/** The rows checked in a list, limited to the rows on screen that may be selected. */
export interface RowSelection {
  /** The checked ids among `selectable`, in list order. */
  readonly selected: readonly number[];
  readonly isSelected: (id: number) => boolean;
  readonly toggle: (id: number) => void;
  /** Checks every selectable row, or unchecks all when all are checked. */
  readonly toggleAll: () => void;
  readonly allSelected: boolean;
  readonly someSelected: boolean;
  readonly clear: () => void;
}

/**
 * Multi-select state of a list page. Only ids in `selectable` (the rows on screen that may be
 * selected, e.g. not the default policy) count, so a page change or a refetch never leaves an
 * invisible row selected.
 */
export function useRowSelection(selectable: readonly number[]): RowSelection {
  const [checked, setChecked] = useState<ReadonlySet<number>>(new Set());
  const selected = useMemo(() => selectable.filter((id) => checked.has(id)), [selectable, checked]);
  const allSelected = selectable.length > 0 && selected.length === selectable.length;
  return {
    selected,
    isSelected: (id) => checked.has(id) && selectable.includes(id),
    toggle: (id) =>
      setChecked((prev) => {
        const next = new Set(prev);
        if (next.has(id)) next.delete(id);
        else next.add(id);
        return next;
      }),
    toggleAll: () => setChecked(allSelected ? new Set() : new Set(selectable)),
    allSelected,
    someSelected: selected.length > 0 && !allSelected,
    clear: () => setChecked(new Set()),
  };
}

/** The header checkbox of a selectable table: checks or unchecks every selectable row on the page. */
export function SelectAllCheckbox({ selection, disabled }: { selection: RowSelection; disabled?: boolean }) {
  const { t } = useTranslation();
  return (
    <Checkbox
      aria-label={t('common.selectAll')}
      checked={selection.allSelected}
      indeterminate={selection.someSelected}
      disabled={disabled ?? false}
      onChange={selection.toggleAll}
    />
  );
}

/** One row's checkbox, labelled with the row's name for screen readers. */
export function RowCheckbox({ selection, id, name }: { selection: RowSelection; id: number; name: string }) {
  const { t } = useTranslation();
  return (
    <Checkbox
      aria-label={t('common.selectRow', { name })}
      checked={selection.isSelected(id)}
      onChange={() => selection.toggle(id)}
    />
  );
}

/**
 * "Delete selected (n)": disabled with nothing selected; asks for confirmation in a dialog that names
 * the selected `items` (the first five, then "and N more") and says what stops working once they
 * are gone (`safeDelete.consequences.<kind>`, or `consequence`), then runs `onConfirm` (one `/batch`,
 * spec-notes §7 Batch) and closes once it settles. With `fetchDependants` it also shows what depends
 * on each and the totals, offering `move` (where the dependants go) when any is in use (issue 29;
 * docs/api.md "Deletes of things in use"); `onConfirm` then gets the choice.
 */
export function DeleteSelectedButton(props: {
  count: number;
  loading: boolean;
  onConfirm: (choice: DeleteChoice) => Promise<void>;
  items: readonly DeleteItem[];
  /** The kind of item: the dependants read's cache key and the `safeDelete.consequences` key. */
  kind: DeleteKind;
  /** What stops working, when the kind's sentence does not fit (e.g. it depends on the list shown). */
  consequence?: string;
  fetchDependants?: (id: number) => Promise<DependantsResponse>;
  move?: MoveChoice;
}) {
  const { t } = useTranslation();
  const [opened, { open, close }] = useDisclosure(false);
  // Mounted from the first click on, so the dialog's closing transition plays.
  const [asked, setAsked] = useState(false);
  return (
    <>
      <Button
        color="red"
        variant="light"
        leftSection={<IconTrash size={16} />}
        disabled={props.count === 0}
        onClick={() => {
          setAsked(true);
          open();
        }}
      >
        {t('common.deleteSelected', { count: props.count })}
      </Button>
      {asked ? (
        <Suspense fallback={null}>
          <SafeDeleteDialog
            opened={opened}
            onClose={close}
            title={t('common.confirmDeleteTitle')}
            text={t('common.confirmDeleteText', { count: props.count })}
            items={props.items}
            consequence={props.consequence ?? t(`safeDelete.consequences.${props.kind}`)}
            kind={props.kind}
            {...(props.fetchDependants ? { fetchDependants: props.fetchDependants } : {})}
            {...(props.move ? { move: props.move } : {})}
            loading={props.loading}
            onConfirm={props.onConfirm}
          />
        </Suspense>
      ) : null}
    </>
  );
}

/** The kinds of item a list deletes in bulk, each with its `safeDelete.consequences` sentence (English and French). */
export const DELETE_KINDS = [
  'policies',
  'groups',
  'device_exceptions',
  'locations',
  'customers',
  'msps',
  'devices',
  'internal_users',
  'admins',
  'cloudkeys',
  'exception_rules',
  'domains_allow',
  'domains_block',
  'domains_all',
] as const;
export type DeleteKind = (typeof DELETE_KINDS)[number];

/** The result of a multi-delete: how many were deleted, and each failure with the row's name and the server's text. */
export interface MultiDeleteResult {
  readonly deleted: number;
  readonly failed: ReadonlyArray<{ readonly name: string; readonly error: string }>;
}

/**
 * Toasts a multi-delete's result: a success toast with the count deleted (when any), and one error
 * toast listing every failure by name with the server's error text (spec-notes §8 texts).
 */
export function useMultiDeleteToasts(): (result: MultiDeleteResult) => void {
  const { t } = useTranslation();
  return (result) => {
    if (result.deleted > 0) showSuccessToast(t('common.deletedCount', { count: result.deleted }));
    if (result.failed.length > 0) {
      notifications.show({
        color: 'red',
        autoClose: Constants.toastDurationMs,
        title: t('common.deleteFailed', { count: result.failed.length }),
        message: (
          <List size="sm" data-testid="delete-failures">
            {result.failed.map((f, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: two rows may share a name
              <List.Item key={i}>{`${f.name}: ${f.error}`}</List.Item>
            ))}
          </List>
        ),
      });
    }
  };
}
