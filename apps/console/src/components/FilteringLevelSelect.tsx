import { FILTERING_LEVEL_LABELS, FILTERING_LEVELS, type FilteringLevel } from '@cordon/shared';
import { Select, type SelectProps } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** The translated label of a filtering level (defaults: shared `FILTERING_LEVEL_LABELS`). */
export function useFilteringLevelLabel(): (level: FilteringLevel) => string {
  const { t } = useTranslation();
  return (level) => t(`filteringLevels.${level}`, { defaultValue: FILTERING_LEVEL_LABELS[level] });
}

/** A select of the protection levels Low, Moderate, High and Custom (spec-notes §4). */
export function FilteringLevelSelect(props: Omit<SelectProps, 'data'>) {
  const label = useFilteringLevelLabel();
  return (
    <Select
      allowDeselect={false}
      data={FILTERING_LEVELS.map((level) => ({ value: level, label: label(level) }))}
      {...props}
    />
  );
}
