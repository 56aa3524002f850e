import { type ExceptionRule, exceptionRuleCreateSchema, RULE_TYPES } from '@cordon/shared';
import { Select, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { FormActions } from '../../components/FormActions.tsx';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';

interface RuleValues {
  domain: string;
  ip: string;
  resolver: string;
  rule_type: string;
  description: string;
}

const validate = schemaValidator(exceptionRuleCreateSchema);

/**
 * An exception rule's form (spec-notes §3 "Exception rule"): domain and/or source IP, the rule type
 * ("Select an option"), the resolver for "Use Specific Resolver", and a description.
 */
export function RuleForm(props: {
  rule: ExceptionRule | null;
  pending: boolean;
  submit: (body: ReturnType<typeof exceptionRuleCreateSchema.parse>) => Promise<unknown>;
  onDone: () => void;
}) {
  const { t } = useTranslation();
  const form = useForm<RuleValues>({
    initialValues: {
      domain: props.rule?.domain ?? '',
      ip: props.rule?.ip ?? '',
      resolver: props.rule?.resolver ?? '',
      rule_type: props.rule?.rule_type ?? '',
      description: props.rule?.description ?? '',
    },
    validate,
  });
  const submit = form.onSubmit((values) => {
    props
      .submit(exceptionRuleCreateSchema.parse(values))
      .then(props.onDone)
      .catch((error: unknown) => applyServerErrors(form, error));
  });
  const specific = form.values.rule_type === 'Use Specific Resolver';
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput
          label={t('deviceExceptions.domain')}
          placeholder="intranet.example.com"
          data-autofocus
          {...form.getInputProps('domain')}
        />
        <TextInput label={t('deviceExceptions.sourceIp')} placeholder="192.0.2.0/24" {...form.getInputProps('ip')} />
        <Select
          label={t('deviceExceptions.ruleType')}
          placeholder={t('deviceExceptions.selectOption')}
          required
          allowDeselect={false}
          data={RULE_TYPES.map((r) => ({ value: r, label: r }))}
          {...form.getInputProps('rule_type')}
        />
        {specific ? (
          <TextInput
            label={t('deviceExceptions.resolver')}
            placeholder="192.0.2.53 or 192.0.2.53:5353"
            required
            {...form.getInputProps('resolver')}
          />
        ) : null}
        <TextInput label={t('common.description')} {...form.getInputProps('description')} />
        <FormActions
          onCancel={props.onDone}
          pending={props.pending}
          submitLabel={props.rule ? t('common.save') : t('common.create')}
        />
      </Stack>
    </form>
  );
}
