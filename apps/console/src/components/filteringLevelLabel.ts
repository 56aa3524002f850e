import { FILTERING_LEVEL_LABELS, type FilteringLevel } from '@cordon/shared';
import { useTranslation } from 'react-i18next';

/** The translated label of a filtering level (defaults: shared `FILTERING_LEVEL_LABELS`). */
export function useFilteringLevelLabel(): (level: FilteringLevel) => string {
  const { t } = useTranslation();
  return (level) => t(`filteringLevels.${level}`, { defaultValue: FILTERING_LEVEL_LABELS[level] });
}
