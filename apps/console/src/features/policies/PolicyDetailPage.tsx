import { Anchor, Badge, Grid, Paper, Text, Title } from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useParams } from 'react-router';
import { PageHeader, usePageSubtitle } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { usePolicyCategoriesQuery, usePolicyQuery } from './api.ts';
import { PolicyCategoriesForm } from './PolicyCategoriesForm.tsx';
import { PolicyEditForm } from './PolicyEditForm.tsx';

function PolicyDetail({ id }: { id: number }) {
  const { t } = useTranslation();
  const policy = usePolicyQuery(id);
  const categories = usePolicyCategoriesQuery(id);
  usePageSubtitle(policy.data?.name);
  return (
    <>
      <Anchor component={Link} to="/customer/content_filtering/policies" size="sm">
        <IconArrowLeft size={14} style={{ verticalAlign: 'middle' }} /> {t('policies.back')}
      </Anchor>
      <PageHeader />
      <Grid>
        <Grid.Col span={{ base: 12, md: 4 }}>
          <Paper withBorder p="md" radius="md">
            <Title order={2} size="h4" mb="sm">
              {t('policies.details')}
            </Title>
            <QueryState query={policy}>
              {(p) => (
                <>
                  {p.is_default ? (
                    <Badge variant="light" mb="sm">
                      {t('policies.default')}
                    </Badge>
                  ) : null}
                  <PolicyEditForm key={p.updated_at} policy={p} />
                  <Text size="sm" c="dimmed" mt="md">
                    {t('policies.locations')}: {p.locations.map((l) => l.name).join(', ') || '—'}
                  </Text>
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
              {(list) => <PolicyCategoriesForm key={categories.dataUpdatedAt} policyId={id} categories={list} />}
            </QueryState>
          </Paper>
        </Grid.Col>
      </Grid>
    </>
  );
}

/** `/customer/content_filtering/policies/{id}` (spec §2 "Policy {id}": details and categories). */
export function PolicyDetailPage() {
  const id = Number(useParams().id);
  if (!Number.isInteger(id) || id <= 0) return <Navigate to="/404" replace />;
  return <PolicyDetail id={id} />;
}
