import { type FilteringLevel, type Policy, policyUpdateSchema } from '@cordon/shared';
import { Button, Group, Stack, Switch, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { FilteringLevelSelect } from '../../components/FilteringLevelSelect.tsx';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';
import { showSuccessToast } from '../../components/toast.ts';
import { useUpdatePolicyMutation } from './api.ts';

interface PolicyEditValues {
  name: string;
  description: string;
  filtering_level: FilteringLevel;
  allow_unclassified: boolean;
}

/** The policy details form (spec §2 "Policy details"; `PUT /policies/{id}` with `policyUpdateSchema`). */
export function PolicyEditForm({ policy }: { policy: Policy }) {
  const { t } = useTranslation();
  const update = useUpdatePolicyMutation(policy.id);
  const form = useForm<PolicyEditValues>({
    initialValues: {
      name: policy.name,
      description: policy.description,
      filtering_level: policy.filtering_level,
      allow_unclassified: policy.allow_unclassified,
    },
    validate: schemaValidator(policyUpdateSchema),
  });

  const submit = form.onSubmit((values) => {
    update.mutate(policyUpdateSchema.parse(values), {
      onSuccess: () => {
        showSuccessToast(t('policies.saved'));
        form.resetDirty();
      },
      onError: (error) => applyServerErrors(form, error),
    });
  });

  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput label={t('common.name')} required {...form.getInputProps('name')} />
        <Textarea label={t('common.description')} autosize minRows={2} {...form.getInputProps('description')} />
        <FilteringLevelSelect label={t('policies.filteringLevel')} {...form.getInputProps('filtering_level')} />
        <Switch
          label={t('policies.allowUnclassified')}
          {...form.getInputProps('allow_unclassified', { type: 'checkbox' })}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={update.isPending} disabled={!form.isDirty()}>
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
