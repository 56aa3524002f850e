import type { DependantsResponse } from '@cordon/shared';
import { Button } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from './ConfirmDialog.tsx';
import { type DeleteChoice, type MoveChoice, SafeDeleteDialog } from './SafeDeleteDialog.tsx';

/**
 * A "Delete" button behind a confirmation dialog naming what goes (`text`); `onConfirm` runs the
 * delete and the dialog closes when it settles. `confirmLabel` names the dialog's action when it is
 * not a delete (a reset confirms with "Reset"); default "Delete". Given `item` (its id and name), the dialog is the one
 * of deletes that know what they break (issue 29; docs/api.md "Deletes of things in use"): with
 * `fetchDependants` it shows what depends on the item, with `move` where those go, and with
 * `confirmName` (cascading customer and MSP deletes) the name must be typed before Delete.
 */
export function ConfirmDeleteButton(props: {
  label: string;
  title: string;
  text: string;
  loading: boolean;
  onConfirm: (choice: DeleteChoice) => Promise<unknown>;
  confirmLabel?: string;
  item?: { id: number; name: string };
  kind?: string;
  fetchDependants?: (id: number) => Promise<DependantsResponse>;
  move?: MoveChoice;
  confirmName?: string;
}) {
  const { t } = useTranslation();
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <>
      <Button color="red" variant="light" leftSection={<IconTrash size={16} aria-hidden />} onClick={open}>
        {props.label}
      </Button>
      {props.item ? (
        <SafeDeleteDialog
          opened={opened}
          onClose={close}
          title={props.title}
          text={props.text}
          items={[props.item]}
          kind={props.kind ?? 'item'}
          {...(props.fetchDependants ? { fetchDependants: props.fetchDependants } : {})}
          {...(props.move ? { move: props.move } : {})}
          {...(props.confirmName !== undefined ? { confirmName: props.confirmName } : {})}
          {...(props.confirmLabel !== undefined ? { confirmLabel: props.confirmLabel } : {})}
          loading={props.loading}
          onConfirm={props.onConfirm}
        />
      ) : (
        <ConfirmDialog
          opened={opened}
          onClose={close}
          title={props.title}
          text={props.text}
          confirmLabel={props.confirmLabel ?? t('common.delete')}
          loading={props.loading}
          onConfirm={() => props.onConfirm({ moveTo: null })}
        />
      )}
    </>
  );
}
