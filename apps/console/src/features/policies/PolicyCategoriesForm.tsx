import { Badge, Button, Group, SimpleGrid, Switch, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showSuccessToast } from '../../components/toast.ts';
import { UnsavedChangesPrompt } from '../../components/UnsavedChangesPrompt.tsx';
import { useUpdatePolicyCategoriesMutation } from './api.ts';
import type { CategoryAllowance } from './categoryMapper.ts';
import { type DefaultPolicyOwner, useUpdateDefaultPolicyCategoriesMutation } from './defaultApi.ts';

const LEVEL_COLOURS = { L: 'red', M: 'orange', H: 'yellow' } as const;
/** The category of names in no category; the policy's "Allow unclassified" switch decides them. */
const UNCLASSIFIED_ID = 0;

/**
 * A policy's categories with their screen-side allowed switches (spec-notes §3 "Category"); saving
 * writes every setting with `PUT /policies/{id}/categories` — or, with `owner`,
 * `POST /policies/default/categories` for that default policy — through the flip mapper.
 */
export function PolicyCategoriesForm({
  policyId,
  categories,
  owner,
}: {
  policyId: number;
  categories: CategoryAllowance[];
  owner?: DefaultPolicyOwner;
}) {
  const { t } = useTranslation();
  const savePolicy = useUpdatePolicyCategoriesMutation(policyId);
  const saveDefault = useUpdateDefaultPolicyCategoriesMutation(owner ?? {});
  const save = owner ? saveDefault : savePolicy;
  const [allowed, setAllowed] = useState(() => new Map(categories.map((c) => [c.id, c.allowed])));
  const dirty = categories.some((c) => allowed.get(c.id) !== c.allowed);

  const toggle = (id: number, value: boolean) => setAllowed((prev) => new Map(prev).set(id, value));
  const submit = () =>
    save.mutate(
      categories.map((c) => ({ ...c, allowed: allowed.get(c.id) ?? c.allowed })),
      { onSuccess: () => showSuccessToast(t('policies.categoriesSaved')) },
    );

  return (
    <>
      <Text size="sm" c="dimmed" mb="sm">
        {t('policies.categoriesHelp')}
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="xs" verticalSpacing="xs" data-testid="policy-categories">
        {/* "Unclassified" is the policy's "Allow unclassified" switch, not a second control here. */}
        {categories
          .filter((c) => c.id !== UNCLASSIFIED_ID)
          .map((c) => (
            <Group key={c.id} gap="xs" wrap="nowrap" justify="space-between" pr="md">
              <Switch
                label={c.name}
                checked={allowed.get(c.id) ?? c.allowed}
                onChange={(e) => toggle(c.id, e.currentTarget.checked)}
                data-category-id={c.id}
              />
              {c.level ? (
                <Badge
                  size="xs"
                  variant="light"
                  color={LEVEL_COLOURS[c.level]}
                  title={t('policies.level')}
                  style={{ flexShrink: 0 }}
                >
                  {c.level}
                </Badge>
              ) : null}
            </Group>
          ))}
      </SimpleGrid>
      <Group justify="flex-end" mt="md">
        <Button onClick={submit} loading={save.isPending} disabled={!dirty}>
          {t('policies.saveCategories')}
        </Button>
      </Group>
      <UnsavedChangesPrompt when={dirty && !save.isPending} />
    </>
  );
}
