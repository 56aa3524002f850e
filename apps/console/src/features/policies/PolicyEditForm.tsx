import { type FilteringLevel, type Policy, type PolicyUpdate, policyUpdateSchema } from '@cordon/shared';
import { Button, Group, Stack, Switch, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { FilteringLevelSelect } from '../../components/FilteringLevelSelect.tsx';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';
import { showSuccessToast } from '../../components/toast.ts';
import { UnsavedChangesPrompt } from '../../components/UnsavedChangesPrompt.tsx';
import { useUpdatePolicyMutation } from './api.ts';
import { type DefaultPolicyOwner, useUpdateDefaultPolicyMutation } from './defaultApi.ts';

interface PolicyEditValues {
  name: string;
  description: string;
  filtering_level: FilteringLevel;
  allow_unclassified: boolean;
  safe_search: boolean;
}

/**
 * The policy details form (spec-notes §2 "Policy details"; `policyUpdateSchema`): `PUT /policies/{id}`, or
 * with `owner` `PUT /policies/default` for that default policy. A global default policy (MSP's or
 * system's: `templateName`) keeps its name, so the name field is not shown.
 */
export function PolicyEditForm({
  policy,
  owner,
  templateName = false,
}: {
  policy: Pick<Policy, 'id' | 'name' | 'description' | 'filtering_level' | 'allow_unclassified' | 'safe_search'>;
  owner?: DefaultPolicyOwner;
  templateName?: boolean;
}) {
  const { t } = useTranslation();
  const updatePolicy = useUpdatePolicyMutation(policy.id);
  const updateDefault = useUpdateDefaultPolicyMutation(owner ?? {});
  const update = owner ? updateDefault : updatePolicy;
  const form = useForm<PolicyEditValues>({
    initialValues: {
      name: policy.name,
      description: policy.description,
      filtering_level: policy.filtering_level,
      allow_unclassified: policy.allow_unclassified,
      safe_search: policy.safe_search,
    },
    validate: schemaValidator(policyUpdateSchema),
  });

  const [pending, setPending] = useState<PolicyUpdate | null>(null);
  const send = (body: PolicyUpdate) =>
    update.mutateAsync(body).then(
      () => {
        showSuccessToast(t('policies.saved'));
        form.resetDirty();
      },
      (error: unknown) => applyServerErrors(form, error),
    );
  const submit = form.onSubmit((values) => {
    const { name, ...rest } = policyUpdateSchema.parse(values);
    const body: PolicyUpdate = templateName ? rest : { name, ...rest };
    // A named level replaces the category choices: ask first (issue 11).
    if (values.filtering_level !== policy.filtering_level && values.filtering_level !== 'custom') setPending(body);
    else void send(body);
  });

  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        {templateName ? null : <TextInput label={t('common.name')} required {...form.getInputProps('name')} />}
        <Textarea label={t('common.description')} autosize minRows={2} {...form.getInputProps('description')} />
        <FilteringLevelSelect label={t('policies.filteringLevel')} {...form.getInputProps('filtering_level')} />
        <Switch
          label={t('policies.allowUnclassified')}
          description={t('policies.allowUnclassifiedHelp')}
          {...form.getInputProps('allow_unclassified', { type: 'checkbox' })}
        />
        <Switch
          label={t('policies.safeSearch')}
          description={t('policies.safeSearchHelp')}
          {...form.getInputProps('safe_search', { type: 'checkbox' })}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={update.isPending} disabled={!form.isDirty()}>
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
      <ConfirmDialog
        opened={pending !== null}
        onClose={() => setPending(null)}
        title={t('policies.confirmLevelTitle')}
        text={t('policies.confirmLevelText')}
        confirmLabel={t('policies.changeLevel')}
        loading={update.isPending}
        onConfirm={() => (pending ? send(pending) : Promise.resolve())}
      />
      <UnsavedChangesPrompt when={form.isDirty() && !update.isPending} />
    </form>
  );
}
