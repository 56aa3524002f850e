import { type FilteringLevel, policyCreateSchema } from '@cordon/shared';
import { Stack, Switch, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { FilteringLevelSelect } from '../../components/FilteringLevelSelect.tsx';
import { FormActions } from '../../components/FormActions.tsx';
import { schemaValidator, submitThrough } from '../../components/form.ts';
import { showSuccessToast } from '../../components/toast.ts';
import { useCreatePolicyMutation } from './api.ts';

interface PolicyFormValues {
  name: string;
  description: string;
  filtering_level: FilteringLevel;
  allow_unclassified: boolean;
  safe_search: boolean;
}

/** The "New policy" form (spec-notes §3 "Policy"; `POST /policies` with `policyCreateSchema`). */
export function PolicyCreateForm({ customerId, onDone }: { customerId: number; onDone: () => void }) {
  const { t } = useTranslation();
  const create = useCreatePolicyMutation();
  const prepare = (values: PolicyFormValues) => ({ ...values, user_id: customerId });
  const form = useForm<PolicyFormValues>({
    initialValues: {
      name: '',
      description: '',
      filtering_level: 'moderate',
      allow_unclassified: true,
      safe_search: false,
    },
    validate: schemaValidator(policyCreateSchema, prepare),
  });

  const submit = submitThrough({
    form,
    schema: policyCreateSchema,
    prepare,
    mutation: create,
    onSuccess: () => {
      showSuccessToast(t('policies.created'));
      onDone();
    },
  });

  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput label={t('common.name')} required data-autofocus {...form.getInputProps('name')} />
        <Textarea label={t('common.description')} autosize minRows={2} {...form.getInputProps('description')} />
        <FilteringLevelSelect label={t('policies.filteringLevel')} {...form.getInputProps('filtering_level')} />
        <Switch
          label={t('policies.allowUnclassified')}
          {...form.getInputProps('allow_unclassified', { type: 'checkbox' })}
        />
        <Switch
          label={t('policies.safeSearch')}
          description={t('policies.safeSearchHelp')}
          {...form.getInputProps('safe_search', { type: 'checkbox' })}
        />
        <FormActions onCancel={onDone} pending={create.isPending} />
      </Stack>
    </form>
  );
}
