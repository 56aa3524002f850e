import { staticRouteCreateSchema } from '@cordon/shared';
import { Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { FormActions } from '../../components/FormActions.tsx';
import { schemaValidator, submitThrough } from '../../components/form.ts';
import { showSuccessToast } from '../../components/toast.ts';
import { useCreateStaticRouteMutation } from './api.ts';

interface StaticRouteFormValues {
  domain: string;
  resolver: string;
  description: string;
}

const prepare = (values: StaticRouteFormValues) => values;
const validate = schemaValidator(staticRouteCreateSchema, prepare);

/** The "New static route" form (`staticRouteCreateSchema`: domain, resolver `IP[:port]`, description). */
export function StaticRouteCreateForm({ customerId, onDone }: { customerId: number; onDone: () => void }) {
  const { t } = useTranslation();
  const create = useCreateStaticRouteMutation(customerId);
  const form = useForm<StaticRouteFormValues>({
    initialValues: { domain: '', resolver: '', description: '' },
    validate,
  });
  const submit = submitThrough({
    form,
    schema: staticRouteCreateSchema,
    prepare,
    mutation: create,
    onSuccess: () => {
      showSuccessToast(t('staticRoutes.created'));
      onDone();
    },
  });
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput
          label={t('staticRoutes.domain')}
          placeholder="corp.example"
          required
          data-autofocus
          {...form.getInputProps('domain')}
        />
        <TextInput
          label={t('staticRoutes.resolver')}
          description={t('staticRoutes.resolverHint')}
          placeholder="10.0.0.53"
          required
          {...form.getInputProps('resolver')}
        />
        <TextInput label={t('common.description')} {...form.getInputProps('description')} />
        <FormActions onCancel={onDone} pending={create.isPending} />
      </Stack>
    </form>
  );
}
