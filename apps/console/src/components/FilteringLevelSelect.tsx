import { FILTERING_LEVELS } from '@cordon/shared';
import { Select, type SelectProps } from '@mantine/core';
import { useFilteringLevelLabel } from './filteringLevelLabel.ts';

// In a module of its own: a list showing levels (the MSP overview's) takes the labels without Select.
export { useFilteringLevelLabel } from './filteringLevelLabel.ts';

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
