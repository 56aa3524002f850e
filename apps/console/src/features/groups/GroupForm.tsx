import { type Group as GroupT, groupCreateSchema } from '@cordon/shared';
import { Select, Stack, Switch, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { FormActions } from '../../components/FormActions.tsx';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';
import { usePolicyChoicesQuery } from './api.ts';

/** The policy select's value for "no policy of its own". */
const NONE = 'none';

interface GroupValues {
  name: string;
  description: string;
  policy: string;
  disable: boolean;
}

const prepare = (v: GroupValues) => ({
  name: v.name,
  description: v.description,
  policyid: v.policy === NONE ? null : Number(v.policy),
  disable: v.disable,
});
const validate = schemaValidator(groupCreateSchema, prepare);

/** A group's form (spec-notes §3 "Group"): name, description, policy and the disable switch. */
export function GroupForm(props: {
  customerId: number;
  group: GroupT | null;
  pending: boolean;
  submit: (body: ReturnType<typeof prepare>) => Promise<unknown>;
  onCancel?: () => void;
}) {
  const { t } = useTranslation();
  const policies = usePolicyChoicesQuery(props.customerId);
  const form = useForm<GroupValues>({
    initialValues: {
      name: props.group?.name ?? '',
      description: props.group?.description ?? '',
      policy: props.group?.policy_id ? String(props.group.policy_id) : NONE,
      disable: props.group?.disable ?? false,
    },
    validate,
  });
  const submit = form.onSubmit((values) => {
    props
      .submit(prepare(values))
      .catch((error: unknown) =>
        applyServerErrors(form, error, (e) =>
          Object.fromEntries(Object.entries(e).map(([k, v]) => [k === 'policyid' ? 'policy' : k, v])),
        ),
      );
  });
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput label={t('common.name')} required data-autofocus {...form.getInputProps('name')} />
        <Textarea label={t('common.description')} autosize minRows={2} {...form.getInputProps('description')} />
        <Select
          label={t('groups.policy')}
          data={[
            { value: NONE, label: t('groups.noPolicy') },
            ...(policies.data?.data ?? []).map((p) => ({ value: String(p.id), label: p.name })),
          ]}
          allowDeselect={false}
          {...form.getInputProps('policy')}
        />
        <Switch label={t('groups.disable')} {...form.getInputProps('disable', { type: 'checkbox' })} />
        <FormActions
          onCancel={props.onCancel ?? (() => form.reset())}
          pending={props.pending}
          submitLabel={props.group ? t('common.save') : t('common.create')}
        />
      </Stack>
    </form>
  );
}
