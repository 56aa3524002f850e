import { Button, Group, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { DeferredModal } from './Deferred.tsx';

/**
 * The confirmation before a destructive or lossy action: a dialog with `title`, `text` naming what
 * goes, Cancel, and the red `confirmLabel` button (focused first). `onConfirm` runs the action; the
 * dialog closes when it settles, whatever the outcome (errors reach the global handling, spec-notes §8).
 */
export function ConfirmDialog(props: {
  opened: boolean;
  onClose: () => void;
  title: string;
  text: string;
  confirmLabel: string;
  loading: boolean;
  onConfirm: () => Promise<unknown>;
}) {
  const { t } = useTranslation();
  return (
    <DeferredModal opened={props.opened} onClose={props.onClose} title={props.title} centered>
      <Text mb="md">{props.text}</Text>
      <Group justify="flex-end">
        <Button variant="default" onClick={props.onClose} disabled={props.loading}>
          {t('common.cancel')}
        </Button>
        <Button
          color="red"
          data-autofocus
          loading={props.loading}
          onClick={() => {
            void props.onConfirm().finally(props.onClose);
          }}
        >
          {props.confirmLabel}
        </Button>
      </Group>
    </DeferredModal>
  );
}
