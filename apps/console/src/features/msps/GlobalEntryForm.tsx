import type { DomainAction } from '@cordon/shared';
import { Button, Group, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showErrorToast, showSuccessToast } from '../../components/toast.ts';
import { parseGlobalEntryDomain } from './customerStatusActions.ts';
import { useAddGlobalEntryMutation } from './customerStatusApi.ts';

/**
 * The "Add a global entry" dialog's form (issue 29): the list (block or allow) and the domain, checked
 * as the API does before it is sent; `onDone` once added or cancelled. Loaded when the dialog first
 * opens (`MspWideActions.tsx`).
 */
export function GlobalEntryForm({ mspId, onDone }: { mspId: number; onDone: () => void }) {
  const { t } = useTranslation();
  const [list, setList] = useState<DomainAction>('block');
  const [domain, setDomain] = useState('');
  const [error, setError] = useState<string | null>(null);
  const create = useAddGlobalEntryMutation(mspId);

  const submit = async () => {
    const valid = parseGlobalEntryDomain(domain);
    if (valid === null) {
      setError(t('customerStatus.globalEntry.invalid'));
      return;
    }
    try {
      await create.mutateAsync({ list, domain: valid });
      showSuccessToast(t(`customerStatus.globalEntry.added_${list}`, { domain: valid }));
      onDone();
    } catch {
      showErrorToast(t('customerStatus.actionFailed'));
    }
  };

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <Stack gap="sm">
        <Text size="sm" data-testid="global-entry-scope">
          {t('customerStatus.globalEntry.scope')}
        </Text>
        <SegmentedControl
          aria-label={t('customerStatus.globalEntry.list')}
          value={list}
          onChange={(v) => setList(v as DomainAction)}
          data={[
            { value: 'block', label: t('customerStatus.globalEntry.block') },
            { value: 'allow', label: t('customerStatus.globalEntry.allow') },
          ]}
        />
        <TextInput
          label={t('customerStatus.globalEntry.domain')}
          placeholder="example.com"
          value={domain}
          onChange={(e) => {
            setDomain(e.currentTarget.value);
            setError(null);
          }}
          error={error}
          required
          data-autofocus
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone} disabled={create.isPending}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" loading={create.isPending}>
            {t('customerStatus.globalEntry.submit')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
