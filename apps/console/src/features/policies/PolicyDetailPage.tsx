import { Anchor, Badge, Paper, Tabs, Text } from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useLocation, useNavigate, useParams } from 'react-router';
import { DomainListPanel } from '../../components/domainList/DomainListPanel.tsx';
import { PageHeader, usePageSubtitle } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { usePolicyCategoriesQuery, usePolicyQuery } from './api.ts';
import { PolicyEditor } from './PolicyEditor.tsx';
import { PolicyDevicesTab, PolicyLocationsTab } from './PolicyEnvironmentTabs.tsx';
import { PolicyNotificationsTab } from './PolicyNotificationsForm.tsx';

/** The policy's tabs (spec-notes §2 "Policy {id}"): details at the id, then `/domains`, `/notifications`, `/locations` and `/devices`. */
type PolicyTab = 'details' | 'domains' | 'notifications' | 'locations' | 'devices';
const TABS: readonly string[] = ['domains', 'notifications', 'locations', 'devices'];

function PolicyDetail({ id, tab }: { id: number; tab: PolicyTab }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const policy = usePolicyQuery(id);
  usePageSubtitle(policy.data?.name);
  const base = `/customer/content_filtering/policies/${id}`;
  return (
    <>
      <Anchor component={Link} to="/customer/content_filtering/policies" size="sm">
        <IconArrowLeft size={14} style={{ verticalAlign: 'middle' }} /> {t('policies.back')}
      </Anchor>
      <PageHeader />
      <Tabs value={tab} onChange={(v) => navigate(!v || v === 'details' ? base : `${base}/${v}`)} keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="details">{t('policies.details')}</Tabs.Tab>
          <Tabs.Tab value="domains">{t('policies.domainsTab')}</Tabs.Tab>
          <Tabs.Tab value="notifications">{t('notifications.tab')}</Tabs.Tab>
          <Tabs.Tab value="locations">{t('policies.locationsTab')}</Tabs.Tab>
          <Tabs.Tab value="devices">{t('policies.devicesTab')}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="details">
          <PolicyDetailsTab id={id} />
        </Tabs.Panel>
        <Tabs.Panel value="domains">
          <Paper withBorder p="md" radius="md">
            {policy.data ? (
              <DomainListPanel owner={{ kind: 'policy', policyId: id, userId: policy.data.user_id }} area="customer" />
            ) : (
              <QueryState query={policy}>{() => null}</QueryState>
            )}
          </Paper>
        </Tabs.Panel>
        <Tabs.Panel value="notifications">
          <PolicyNotificationsTab owner={{ kind: 'policy', policyId: id }} />
        </Tabs.Panel>
        <Tabs.Panel value="locations">
          {policy.data ? (
            <PolicyLocationsTab policyId={id} customerId={policy.data.user_id} />
          ) : (
            <QueryState query={policy}>{() => null}</QueryState>
          )}
        </Tabs.Panel>
        <Tabs.Panel value="devices">
          {policy.data ? (
            <PolicyDevicesTab policyId={id} customerId={policy.data.user_id} />
          ) : (
            <QueryState query={policy}>{() => null}</QueryState>
          )}
        </Tabs.Panel>
      </Tabs>
    </>
  );
}

/** The details tab: the policy editor (details, level, grouped categories, preview; one Save). */
function PolicyDetailsTab({ id }: { id: number }) {
  const { t } = useTranslation();
  const policy = usePolicyQuery(id);
  const categories = usePolicyCategoriesQuery(id);
  return (
    <QueryState query={policy}>
      {(p) => (
        <QueryState query={categories}>
          {(list) => (
            <PolicyEditor
              // One editor per policy: after a save it keeps its own state (the reads refetch meanwhile).
              key={p.id}
              policy={p}
              categories={list}
              preview
              aside={
                <>
                  {p.is_default ? (
                    <Badge variant="light" mt="md">
                      {t('policies.default')}
                    </Badge>
                  ) : null}
                  <Text size="sm" c="dimmed" mt="md">
                    {t('policies.locations')}: {p.locations.map((l) => l.name).join(', ') || '—'}
                  </Text>
                </>
              }
            />
          )}
        </QueryState>
      )}
    </QueryState>
  );
}

/**
 * `/customer/content_filtering/policies/{id}` (spec-notes §2 "Policy {id}": details and categories) and
 * its domains tab at `…/{id}/domains` (the policy's allow and block lists, the shared list view),
 * notifications tab at `…/{id}/notifications` (category notifications, spec-notes §3), locations tab at `…/{id}/locations` and devices tab at `…/{id}/devices`.
 */
export function PolicyDetailPage() {
  const id = Number(useParams().id);
  const last = useLocation().pathname.split('/').at(-1);
  const tab = (last !== undefined && TABS.includes(last) ? last : 'details') as PolicyTab;
  if (!Number.isInteger(id) || id <= 0) return <Navigate to="/404" replace />;
  return <PolicyDetail id={id} tab={tab} />;
}
