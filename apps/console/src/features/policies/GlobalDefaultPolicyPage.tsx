import { Paper, Stack, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader.tsx';
import { useMspId } from '../../session/context.ts';
import { CategoryLevelsForm } from './CategoryLevelsForm.tsx';
import { DefaultPolicyPanels } from './DefaultPolicyPanels.tsx';

/**
 * `/msp/global_settings/global_default_policy` (spec-notes §2): the MSP's global default policy, which its
 * new customers copy (`/policies/default?msp_id=`).
 */
export function MspGlobalDefaultPolicyPage() {
  const mspId = useMspId();
  return (
    <>
      <PageHeader />
      <DefaultPolicyPanels owner={{ msp_id: mspId }} template />
    </>
  );
}

/**
 * `/system/global_settings/global_default_policy` (spec-notes §2): the system's global default policy,
 * which new MSPs copy (`/policies/default` without an owner), and which categories each protection
 * level blocks (spec-notes §4: for policies created afterwards).
 */
export function SystemGlobalDefaultPolicyPage() {
  const { t } = useTranslation();
  return (
    <>
      <PageHeader />
      <Stack>
        <DefaultPolicyPanels owner={{}} template />
        <Paper withBorder p="md" radius="md">
          <Title order={2} size="h4" mb="sm">
            {t('defaultPolicy.levels')}
          </Title>
          <CategoryLevelsForm />
        </Paper>
      </Stack>
    </>
  );
}
