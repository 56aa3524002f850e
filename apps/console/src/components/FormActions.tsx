import { Button, Group } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** The footer of a create form: Cancel, and the submit button (busy while the call runs). */
export function FormActions({ onCancel, pending }: { onCancel: () => void; pending: boolean }) {
  const { t } = useTranslation();
  return (
    <Group justify="flex-end" mt="sm">
      <Button variant="default" onClick={onCancel}>
        {t('common.cancel')}
      </Button>
      <Button type="submit" loading={pending}>
        {t('common.create')}
      </Button>
    </Group>
  );
}
