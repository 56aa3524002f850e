import { Tabs } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader.tsx';
import { useCustomerId } from '../../session/context.ts';
import { DefaultPolicyPanels } from './DefaultPolicyPanels.tsx';

/**
 * `/customer/settings/default_policy` (spec §2 "Customer default policy"): the customer's default
 * policy, used by every location without a policy of its own. Its "Policy Details" tab is the
 * policy form and categories; the domains and notifications tabs come with their features.
 */
export function DefaultPolicyPage() {
  const { t } = useTranslation();
  const customerId = useCustomerId();
  return (
    <>
      <PageHeader />
      <Tabs defaultValue="details" keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="details">{t('defaultPolicy.detailsTab')}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="details">
          <DefaultPolicyPanels owner={{ user_id: customerId }} template={false} />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
