import { type CloudKey, cloudKeyCreateSchema, cloudKeyUpdateSchema } from '@cordon/shared';
import { Button, Group, NumberInput, SimpleGrid, Stack, Switch, Textarea, TextInput } from '@mantine/core';
import { type FormErrors, useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';

/** The form's values: texts as typed; minutes for the bypass; '' = no limit / open end. */
export interface CloudKeyFormValues {
  key: string;
  description: string;
  max_uses: number | '';
  valid_from: string;
  valid_to: string;
  expires_after_minutes: number | '';
  active: boolean;
}

/** `datetime-local` text (the browser's local time) → ISO-8601 UTC, '' → null. */
export function localToIso(value: string): string | null {
  if (!value) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? value : d.toISOString();
}

/** ISO-8601 → `datetime-local` text in the browser's local time, null → ''. */
export function isoToLocal(value: string | null): string {
  if (!value) return '';
  const d = new Date(value);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** Form values → the API body (`expires_after` in seconds; docs/api.md "Cloud keys"). */
export function toBody(v: CloudKeyFormValues) {
  return {
    key: v.key,
    description: v.description,
    max_uses: v.max_uses === '' ? null : v.max_uses,
    valid_from: localToIso(v.valid_from),
    valid_to: localToIso(v.valid_to),
    expires_after: v.expires_after_minutes === '' ? undefined : Math.round(v.expires_after_minutes * 60),
    active: v.active,
  };
}

/** A key's current values in the form. */
export function toValues(k: CloudKey | null): CloudKeyFormValues {
  return {
    key: k?.key ?? '',
    description: k?.description ?? '',
    max_uses: k?.max_uses ?? '',
    valid_from: isoToLocal(k?.valid_from ?? null),
    valid_to: isoToLocal(k?.valid_to ?? null),
    expires_after_minutes: k ? Math.round(k.expires_after / 60) : 60,
    active: k?.active ?? true,
  };
}

/** Server field names → form field names (`expires_after` is entered in minutes). */
const toFormErrors = (errors: FormErrors): FormErrors => {
  const { expires_after, ...rest } = errors;
  return expires_after === undefined ? rest : { ...rest, expires_after_minutes: expires_after };
};

/**
 * The cloud-key fields (spec-notes §3 "Cloud key"; docs/architecture.md "Block page"), validated with the shared schema (spec
 * §5 "Key can only contain letters, numbers, spaces, dots and dashes."). `key` null: a new key.
 * `submit` gets the API body; its promise's rejection puts the server's field messages on the fields.
 */
export function CloudKeyForm(props: {
  cloudKey: CloudKey | null;
  pending: boolean;
  submit: (body: ReturnType<typeof toBody>) => Promise<unknown>;
  onCancel?: () => void;
}) {
  const { t } = useTranslation();
  const schema = props.cloudKey ? cloudKeyUpdateSchema : cloudKeyCreateSchema;
  const form = useForm<CloudKeyFormValues>({
    initialValues: toValues(props.cloudKey),
    validate: schemaValidator(schema, toBody),
  });
  const onSubmit = form.onSubmit((values) => {
    props.submit(toBody(values)).then(
      () => form.resetDirty(),
      (error: unknown) => applyServerErrors(form, error, toFormErrors),
    );
  });
  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack>
        <TextInput
          label={t('cloudkeys.key')}
          required
          autoComplete="off"
          data-autofocus
          {...form.getInputProps('key')}
        />
        <Textarea label={t('common.description')} autosize minRows={2} {...form.getInputProps('description')} />
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <NumberInput
            label={t('cloudkeys.maxUses')}
            description={t('cloudkeys.maxUsesHint')}
            min={1}
            allowDecimal={false}
            clampBehavior="none"
            {...form.getInputProps('max_uses')}
          />
          <NumberInput
            label={t('cloudkeys.expiresAfter')}
            description={t('cloudkeys.expiresAfterHint')}
            min={1}
            max={43200}
            allowDecimal={false}
            clampBehavior="none"
            {...form.getInputProps('expires_after_minutes')}
          />
          <TextInput type="datetime-local" label={t('cloudkeys.validFrom')} {...form.getInputProps('valid_from')} />
          <TextInput type="datetime-local" label={t('cloudkeys.validTo')} {...form.getInputProps('valid_to')} />
        </SimpleGrid>
        <Switch label={t('cloudkeys.active')} {...form.getInputProps('active', { type: 'checkbox' })} />
        <Group justify="flex-end">
          {props.onCancel ? (
            <Button variant="default" onClick={props.onCancel} disabled={props.pending}>
              {t('common.cancel')}
            </Button>
          ) : null}
          <Button type="submit" loading={props.pending} disabled={props.cloudKey !== null && !form.isDirty()}>
            {props.cloudKey ? t('common.save') : t('common.create')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
