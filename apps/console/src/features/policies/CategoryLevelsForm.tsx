import type { CategoryLevel } from '@cordon/shared';
import { Select, SimpleGrid, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useCategoryName } from '../../components/categoryName.ts';
import { QueryState } from '../../components/QueryState.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import type { CategoryAllowance } from './categoryMapper.ts';
import { useDefaultPolicyCategoriesQuery, useSetCategoryLevelMutation } from './defaultApi.ts';

const NONE = 'none';

/** One category's level select; a change is saved at once with `PUT /policies/default/categories/{id}`. */
function CategoryLevelSelect({ category }: { category: CategoryAllowance }) {
  const { t } = useTranslation();
  const categoryName = useCategoryName();
  const save = useSetCategoryLevelMutation(category.id);
  return (
    <Select
      label={categoryName(category.id, category.name)}
      allowDeselect={false}
      disabled={save.isPending}
      value={category.level ?? NONE}
      data={[
        { value: 'L', label: t('defaultPolicy.levelL') },
        { value: 'M', label: t('defaultPolicy.levelM') },
        { value: 'H', label: t('defaultPolicy.levelH') },
        { value: NONE, label: t('policies.levelNone') },
      ]}
      onChange={(value) => {
        if (value === null) return;
        const level = value === NONE ? null : (value as CategoryLevel);
        save.mutate({ level }, { onSuccess: () => showSuccessToast(t('defaultPolicy.levelSaved')) });
      }}
      data-category-id={category.id}
    />
  );
}

/**
 * The system admin's protection levels (spec-notes §4): for each category, the lowest level that blocks
 * it (Low blocks L; Moderate L and M; High L, M and H) or none (custom policies only). Edits apply
 * to policies created afterwards; existing policies keep their categories.
 */
export function CategoryLevelsForm() {
  const { t } = useTranslation();
  const categories = useDefaultPolicyCategoriesQuery({});
  return (
    <>
      <Text size="sm" c="dimmed" mb="sm">
        {t('defaultPolicy.levelsHelp')}
      </Text>
      <QueryState query={categories}>
        {(list) => (
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="sm" data-testid="category-levels">
            {list.map((c) => (
              <CategoryLevelSelect key={c.id} category={c} />
            ))}
          </SimpleGrid>
        )}
      </QueryState>
    </>
  );
}
