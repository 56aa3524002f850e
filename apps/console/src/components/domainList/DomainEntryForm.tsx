import { type DomainAction, type DomainEntry, type DomainEntryCreate, domainEntryCreateSchema } from '@cordon/shared';
import { Button, Checkbox, Group, SegmentedControl, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { applyServerErrors, schemaValidator } from '../form.ts';
import { formatNumber } from '../format.ts';
import { listFullLimit } from './logic.ts';

/** The form's values: an entry's fields and, for a new entry, the list it goes to. */
export interface DomainEntryFormValues {
  list: DomainAction;
  domain: string;
  include_subdomains: boolean;
  comment: string;
  log_requests: boolean;
}

const prepare = ({ list: _list, ...entry }: DomainEntryFormValues) => entry;
const validate = schemaValidator(domainEntryCreateSchema, prepare);

/**
 * The add and edit form of a list entry (spec-notes §3 "Domain list entry", §5 "Domain"): the domain
 * (a domain or partial domain, never a URL: the spec-notes §5 message, checked with the shared schema and
 * again by the server), include subdomains, comment and log requests. A new entry also picks its
 * list (Allowed or Blocked); an entry being edited stays in its list. `submit` gets the parsed body
 * (the domain normalised) and the list; a rejected 400 puts the server's messages on the fields.
 */
export function DomainEntryForm(props: {
  entry: DomainEntry | null;
  list: DomainAction;
  pending: boolean;
  submit: (list: DomainAction, body: DomainEntryCreate) => Promise<unknown>;
  onCancel?: () => void;
}) {
  const { t, i18n } = useTranslation();
  const e = props.entry;
  const form = useForm<DomainEntryFormValues>({
    initialValues: {
      list: e?.object ?? props.list,
      domain: e?.domain ?? '',
      include_subdomains: e?.include_subdomains ?? true,
      comment: e?.comment ?? '',
      log_requests: e?.log_requests ?? true,
    },
    validate,
  });
  const onSubmit = form.onSubmit((values) => {
    props.submit(values.list, domainEntryCreateSchema.parse(prepare(values))).catch((error: unknown) => {
      const max = listFullLimit(error);
      if (max === null) applyServerErrors(form, error);
      else form.setErrors({ domain: t('domains.listFull', { max: formatNumber(max, i18n.language) }) });
    });
  });
  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack>
        {e === null ? (
          <Stack gap={4}>
            <Text size="sm" fw={500} id="domain-entry-list-label">
              {t('domainList.list')}
            </Text>
            <SegmentedControl
              aria-labelledby="domain-entry-list-label"
              data={[
                { value: 'allow', label: t('domainList.allowed') },
                { value: 'block', label: t('domainList.blocked') },
              ]}
              {...form.getInputProps('list')}
            />
          </Stack>
        ) : null}
        <TextInput
          label={t('domainList.domain')}
          description={t('domainList.domainHint')}
          placeholder="example.com"
          required
          data-autofocus
          autoComplete="off"
          {...form.getInputProps('domain')}
        />
        <Checkbox
          label={t('domainList.includeSubdomains')}
          description={t('domainList.includeSubdomainsHint')}
          {...form.getInputProps('include_subdomains', { type: 'checkbox' })}
        />
        <Checkbox label={t('domainList.logRequests')} {...form.getInputProps('log_requests', { type: 'checkbox' })} />
        <Textarea label={t('domainList.comment')} autosize minRows={2} {...form.getInputProps('comment')} />
        <Group justify="flex-end" mt="sm">
          {props.onCancel ? (
            <Button variant="default" onClick={props.onCancel}>
              {t('common.cancel')}
            </Button>
          ) : null}
          <Button type="submit" loading={props.pending}>
            {e === null ? t('domainList.add') : t('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
