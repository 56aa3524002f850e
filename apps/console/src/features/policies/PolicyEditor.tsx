import { type Policy, type PolicyUpdate, policyUpdateSchema } from '@cordon/shared';
import {
  Badge,
  Box,
  Button,
  Grid,
  Group,
  Paper,
  SegmentedControl,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconLock, IconLockOpen } from '@tabler/icons-react';
import { useId, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCategoryName } from '../../components/categoryName.ts';
import { useFilteringLevelLabel } from '../../components/FilteringLevelSelect.tsx';
import { applyServerErrors, schemaValidator } from '../../components/form.ts';
import { showSuccessToast } from '../../components/toast.ts';
import { UnsavedChangesPrompt } from '../../components/UnsavedChangesPrompt.tsx';
import { useUpdatePolicyCategoriesMutation, useUpdatePolicyMutation } from './api.ts';
import type { CategoryAllowance } from './categoryMapper.ts';
import {
  type DefaultPolicyOwner,
  useUpdateDefaultPolicyCategoriesMutation,
  useUpdateDefaultPolicyMutation,
} from './defaultApi.ts';
import { PolicyPreviewPanel } from './PolicyPreviewPanel.tsx';
import {
  BASE_LEVELS,
  type BaseLevel,
  baseLevelOf,
  differenceCount,
  type EditorCategory,
  type EditorGroup,
  groupCategories,
  levelSet,
  setAll,
} from './policyEditorModel.ts';

interface DetailsValues {
  name: string;
  description: string;
  allow_unclassified: boolean;
  safe_search: boolean;
}

const LEVEL_WORD = { L: 'low', M: 'moderate', H: 'high' } as const;
/** A dark orange: white text on it passes WCAG AA (6.4:1), which Mantine's orange shades do not. */
const CHANGED_COLOUR = '#a63c06';

/**
 * The policy editor (issue 29; docs/categories.md "The policy editor"): the details, the protection
 * level and the categories in their groups — each "Blocked" or "Allowed" in words, with "Block all" /
 * "Allow all" per group and a mark on every choice that differs from the level — saved together by
 * one Save in the unsaved-changes bar (`PUT /policies/{id}` for changed details, then
 * `PUT /policies/{id}/categories` for changed choices: the server names the level again). With
 * `owner` the default policy's routes (`/policies/default…`); `templateName` hides the name of a
 * global default policy; `preview` shows what the choices would have blocked (a customer's policy).
 */
export function PolicyEditor({
  policy,
  categories,
  owner,
  templateName = false,
  preview = false,
  aside,
}: {
  policy: Pick<Policy, 'id' | 'name' | 'description' | 'filtering_level' | 'allow_unclassified' | 'safe_search'>;
  categories: CategoryAllowance[];
  owner?: DefaultPolicyOwner;
  templateName?: boolean;
  preview?: boolean;
  /** Shown under the details (e.g. the locations using the policy). */
  aside?: React.ReactNode;
}) {
  const { t } = useTranslation();
  const levelLabel = useFilteringLevelLabel();
  const categoryName = useCategoryName();
  const updatePolicy = useUpdatePolicyMutation(policy.id);
  const updateDefault = useUpdateDefaultPolicyMutation(owner ?? {});
  const update = owner ? updateDefault : updatePolicy;
  const savePolicyCats = useUpdatePolicyCategoriesMutation(policy.id);
  const saveDefaultCats = useUpdateDefaultPolicyCategoriesMutation(owner ?? {});
  const saveCats = owner ? saveDefaultCats : savePolicyCats;

  const cats: EditorCategory[] = useMemo(
    // Unclassified (0) is the "Allow unclassified" switch's: no level blocks it, the editor does not list it.
    () =>
      categories.filter((c) => c.id !== 0).map((c) => ({ id: c.id, name: categoryName(c.id, c.name), level: c.level })),
    [categories, categoryName],
  );
  const groups = useMemo(() => groupCategories(cats), [cats]);
  const [saved, setSaved] = useState(() => new Set(categories.filter((c) => !c.allowed).map((c) => c.id)));
  const [blocked, setBlocked] = useState<Set<number>>(saved);
  const [base, setBase] = useState<BaseLevel>(() => baseLevelOf(policy.filtering_level, saved, cats));
  const [saving, setSaving] = useState(false);
  const form = useForm<DetailsValues>({
    initialValues: {
      name: policy.name,
      description: policy.description,
      allow_unclassified: policy.allow_unclassified,
      safe_search: policy.safe_search,
    },
    validate: schemaValidator(policyUpdateSchema),
  });

  const baseSet = useMemo(() => levelSet(base, cats), [base, cats]);
  const changedCats = differenceCount(blocked, saved, cats);
  const detailsDirty = form.isDirty();
  const dirty = detailsDirty || changedCats > 0;
  const differing = differenceCount(blocked, baseSet, cats);

  const chooseLevel = (level: BaseLevel) => {
    setBase(level);
    // The level's own set, Unclassified kept as it is (the switch decides it).
    const next = levelSet(level, cats);
    if (blocked.has(0)) next.add(0);
    setBlocked(next);
  };
  const discard = () => {
    form.reset();
    setBlocked(saved);
    setBase(baseLevelOf(policy.filtering_level, saved, cats));
  };
  const submit = async () => {
    if (form.validate().hasErrors) return;
    setSaving(true);
    try {
      if (detailsDirty) {
        const { name, ...rest } = policyUpdateSchema.parse(form.getValues());
        const body: PolicyUpdate = templateName ? rest : { name, ...rest };
        await update.mutateAsync(body);
      }
      if (changedCats > 0) {
        await saveCats.mutateAsync(categories.map((c) => ({ ...c, allowed: !blocked.has(c.id) })));
      }
      form.resetDirty();
      setSaved(new Set(blocked));
      showSuccessToast(t('policies.saved'));
    } catch (error) {
      applyServerErrors(form, error);
    } finally {
      setSaving(false);
    }
  };

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
      noValidate
    >
      <Grid>
        <Grid.Col span={{ base: 12, md: 4 }}>
          <Stack>
            <Paper withBorder p="md" radius="md">
              <Title order={2} size="h4" mb="sm">
                {t('policies.details')}
              </Title>
              <Stack>
                {templateName ? null : <TextInput label={t('common.name')} required {...form.getInputProps('name')} />}
                <Textarea label={t('common.description')} autosize minRows={2} {...form.getInputProps('description')} />
                <Switch
                  label={t('policies.allowUnclassified')}
                  description={t('policies.allowUnclassifiedHelp')}
                  {...form.getInputProps('allow_unclassified', { type: 'checkbox' })}
                />
                <Switch
                  label={t('policies.safeSearch')}
                  description={t('policies.safeSearchHelp')}
                  {...form.getInputProps('safe_search', { type: 'checkbox' })}
                />
              </Stack>
              {aside}
            </Paper>
            {preview ? (
              <PolicyPreviewPanel
                policyId={policy.id}
                body={{
                  blocked: [...blocked].filter((id) => id !== 0),
                  allow_unclassified: form.getValues().allow_unclassified,
                }}
              />
            ) : null}
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 8 }}>
          <Paper withBorder p="md" radius="md">
            <Title order={2} size="h4" mb="xs">
              {t('policies.categories')}
            </Title>
            <LevelPicker base={base} onChange={chooseLevel} label={levelLabel} />
            <Text size="sm" mt="xs" data-testid="policy-level-summary">
              {t('policyEditor.levelIncludes', { level: levelLabel(base), count: baseSet.size })}{' '}
              {differing === 0
                ? t('policyEditor.sameAsLevel')
                : t('policyEditor.differsFromLevel', { count: differing, level: levelLabel(base) })}
            </Text>
            <Legend />
            <Stack gap="md" mt="md" data-testid="policy-categories">
              {groups.map((g) => (
                <CategoryGroupSection
                  key={g.id}
                  group={g}
                  blocked={blocked}
                  baseSet={baseSet}
                  onChange={(ids, block) => setBlocked((prev) => setAll(prev, ids, block))}
                />
              ))}
            </Stack>
          </Paper>
        </Grid.Col>
      </Grid>
      <UnsavedBar dirty={dirty} saving={saving} onDiscard={discard} changedCategories={changedCats} />
      <UnsavedChangesPrompt when={dirty && !saving} />
    </form>
  );
}

/** The protection level the choices start from and are compared with. */
function LevelPicker({
  base,
  onChange,
  label,
}: {
  base: BaseLevel;
  onChange: (level: BaseLevel) => void;
  label: (level: BaseLevel) => string;
}) {
  const { t } = useTranslation();
  const id = useId();
  return (
    <Box>
      <Text size="sm" fw={500} id={id}>
        {t('policyEditor.level')}
      </Text>
      <Text size="xs" c="dimmed" mb={4}>
        {t('policyEditor.levelHelp')}
      </Text>
      <SegmentedControl
        value={base}
        onChange={(v) => onChange(v as BaseLevel)}
        data={BASE_LEVELS.map((l) => ({ value: l, label: label(l) }))}
        aria-labelledby={id}
        data-testid="policy-level"
        fullWidth
        maw={520}
        styles={{ control: { minWidth: 0 }, label: { whiteSpace: 'normal' } }}
      />
    </Box>
  );
}

/** The marks the categories carry, in words. */
function Legend() {
  const { t } = useTranslation();
  return (
    <Group gap="xs" mt="sm" wrap="wrap" aria-label={t('policyEditor.legend')} role="note">
      <Text size="xs" fw={600}>
        {t('policyEditor.legend')}:
      </Text>
      <Badge size="sm" variant="outline" color="gray.8" radius="sm">
        {t('policyEditor.inLevel')}
      </Badge>
      <Text size="xs">{t('policyEditor.inLevelHelp')}</Text>
      <Badge size="sm" variant="filled" color={CHANGED_COLOUR} radius="sm">
        {t('policyEditor.changed')}
      </Badge>
      <Text size="xs">{t('policyEditor.changedHelp')}</Text>
      <Text size="xs" c="dimmed">
        {t('policyEditor.fromLevelHelp')}
      </Text>
    </Group>
  );
}

/** One group: its name, how many are blocked, "Block all" / "Allow all", and its categories. */
function CategoryGroupSection({
  group,
  blocked,
  baseSet,
  onChange,
}: {
  group: EditorGroup;
  blocked: ReadonlySet<number>;
  baseSet: ReadonlySet<number>;
  onChange: (ids: number[], block: boolean) => void;
}) {
  const { t } = useTranslation();
  const headingId = useId();
  const name = t(`categoryGroups.${group.id}`);
  const ids = group.categories.map((c) => c.id);
  const nBlocked = ids.filter((id) => blocked.has(id)).length;
  return (
    <Box component="section" aria-labelledby={headingId} data-group={group.id}>
      <Group justify="space-between" gap="xs" mb={6} wrap="wrap">
        <div>
          <Title order={3} size="h5" id={headingId}>
            {name}
          </Title>
          <Text size="xs" c="dimmed">
            {t('policyEditor.groupCount', { blocked: nBlocked, total: ids.length })}
          </Text>
        </div>
        <Group gap="xs">
          <Button
            size="compact-sm"
            variant="default"
            leftSection={<IconLock size={14} aria-hidden />}
            disabled={nBlocked === ids.length}
            onClick={() => onChange(ids, true)}
            aria-label={t('policyEditor.blockAllIn', { group: name })}
          >
            {t('policyEditor.blockAll')}
          </Button>
          <Button
            size="compact-sm"
            variant="default"
            leftSection={<IconLockOpen size={14} aria-hidden />}
            disabled={nBlocked === 0}
            onClick={() => onChange(ids, false)}
            aria-label={t('policyEditor.allowAllIn', { group: name })}
          >
            {t('policyEditor.allowAll')}
          </Button>
        </Group>
      </Group>
      <Stack gap={4}>
        {group.categories.map((c) => (
          <CategoryRow
            key={c.id}
            category={c}
            blocked={blocked.has(c.id)}
            inLevel={baseSet.has(c.id)}
            onChange={(block) => onChange([c.id], block)}
          />
        ))}
      </Stack>
    </Box>
  );
}

/** A category: its name, its level marks, and Allowed | Blocked. */
function CategoryRow({
  category,
  blocked,
  inLevel,
  onChange,
}: {
  category: EditorCategory;
  blocked: boolean;
  inLevel: boolean;
  onChange: (block: boolean) => void;
}) {
  const { t } = useTranslation();
  const id = useId();
  const changed = blocked !== inLevel;
  return (
    <Group
      justify="space-between"
      gap="xs"
      wrap="wrap"
      py={4}
      style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}
      data-category-id={category.id}
    >
      <Group gap={6} wrap="wrap" style={{ flex: '1 1 12rem', minWidth: 0 }}>
        <Text size="sm" id={id}>
          {category.name}
        </Text>
        {category.level ? (
          <Text span size="xs" c="dimmed">
            {t('policyEditor.fromLevel', { level: t(`policyEditor.levelShort.${LEVEL_WORD[category.level]}`) })}
          </Text>
        ) : null}
        {inLevel ? (
          <Badge size="xs" variant="outline" color="gray.8" radius="sm">
            {t('policyEditor.inLevel')}
          </Badge>
        ) : null}
        {changed ? (
          <Badge size="xs" variant="filled" color={CHANGED_COLOUR} radius="sm" data-testid="category-changed">
            {t('policyEditor.changed')}
          </Badge>
        ) : null}
      </Group>
      <SegmentedControl
        size="xs"
        value={blocked ? 'blocked' : 'allowed'}
        onChange={(v) => onChange(v === 'blocked')}
        aria-labelledby={id}
        color={blocked ? 'red.9' : 'teal.9'}
        data={[
          { value: 'allowed', label: t('policies.allowed') },
          { value: 'blocked', label: t('policyEditor.blocked') },
        ]}
        data-state={blocked ? 'blocked' : 'allowed'}
      />
    </Group>
  );
}

/** The one Save: sticky at the bottom, saying whether anything is unsaved. */
function UnsavedBar({
  dirty,
  saving,
  onDiscard,
  changedCategories,
}: {
  dirty: boolean;
  saving: boolean;
  onDiscard: () => void;
  changedCategories: number;
}) {
  const { t } = useTranslation();
  return (
    <Paper
      withBorder
      shadow={dirty ? 'md' : undefined}
      p="sm"
      mt="md"
      radius="md"
      style={{ position: 'sticky', bottom: 8, zIndex: 5 }}
      data-testid="unsaved-bar"
      data-dirty={dirty}
    >
      <Group justify="space-between" gap="xs" wrap="wrap">
        <Text size="sm" fw={dirty ? 600 : 400} role="status">
          {dirty
            ? changedCategories > 0
              ? t('policyEditor.unsavedCategories', { count: changedCategories })
              : t('policyEditor.unsaved')
            : t('policyEditor.allSaved')}
        </Text>
        <Group gap="xs">
          <Button variant="default" onClick={onDiscard} disabled={!dirty || saving}>
            {t('policyEditor.discard')}
          </Button>
          <Button type="submit" loading={saving} disabled={!dirty}>
            {t('common.save')}
          </Button>
        </Group>
      </Group>
    </Paper>
  );
}
