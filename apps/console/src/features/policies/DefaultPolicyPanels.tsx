import { Grid, Paper, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { QueryState } from '../../components/QueryState.tsx';
import { type DefaultPolicyOwner, useDefaultPolicyCategoriesQuery, useDefaultPolicyQuery } from './defaultApi.ts';
import { PolicyCategoriesForm } from './PolicyCategoriesForm.tsx';
import { PolicyEditForm } from './PolicyEditForm.tsx';

/**
 * The "Policy Details" of a default policy (spec-notes §2): the policy form and its categories, read and
 * written through `/policies/default…` for `owner`. A global default policy (an MSP's or the
 * system's) is a template: its name stays 'Default', and it applies to tenants created afterwards.
 */
export function DefaultPolicyPanels({ owner, template }: { owner: DefaultPolicyOwner; template: boolean }) {
  const { t } = useTranslation();
  const policy = useDefaultPolicyQuery(owner);
  const categories = useDefaultPolicyCategoriesQuery(owner);
  return (
    <Grid>
      <Grid.Col span={{ base: 12, md: 4 }}>
        <Paper withBorder p="md" radius="md">
          <Title order={2} size="h4" mb="sm">
            {t('policies.details')}
          </Title>
          {template ? (
            <Text size="sm" c="dimmed" mb="sm">
              {t(owner.msp_id === undefined ? 'defaultPolicy.systemHelp' : 'defaultPolicy.mspHelp')}
            </Text>
          ) : null}
          <QueryState query={policy}>
            {(p) => (
              <>
                <PolicyEditForm key={p.updated_at} policy={p} owner={owner} templateName={template} />
                {template ? null : (
                  <Text size="sm" c="dimmed" mt="md">
                    {t('policies.locations')}: {p.locations.map((l) => l.name).join(', ') || '—'}
                  </Text>
                )}
              </>
            )}
          </QueryState>
        </Paper>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 8 }}>
        <Paper withBorder p="md" radius="md">
          <Title order={2} size="h4" mb="sm">
            {t('policies.categories')}
          </Title>
          <QueryState query={categories}>
            {(list) => (
              <PolicyCategoriesForm
                key={categories.dataUpdatedAt}
                policyId={policy.data?.id ?? 0}
                categories={list}
                owner={owner}
              />
            )}
          </QueryState>
        </Paper>
      </Grid.Col>
    </Grid>
  );
}
