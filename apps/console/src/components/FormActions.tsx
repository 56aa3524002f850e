import { Button, Group } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** The footer of a form: Cancel, and the submit button ("Create" unless `submitLabel`; busy while the call runs). */
export function FormActions({
  onCancel,
  pending,
  submitLabel,
}: {
  onCancel: () => void;
  pending: boolean;
  submitLabel?: string;
}) {
  const { t } = useTranslation();
  return (
    <Group justify="flex-end" mt="sm">
      <Button variant="default" onClick={onCancel}>
        {t('common.cancel')}
      </Button>
      <Button type="submit" loading={pending}>
        {submitLabel ?? t('common.create')}
      </Button>
    </Group>
  );
}
