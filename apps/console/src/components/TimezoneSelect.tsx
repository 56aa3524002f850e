import { Select, type SelectProps } from '@mantine/core';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';

/** The form value standing for "Use System Default" (the wire's ''), spec-notes §9. */
export const SYSTEM_TIMEZONE = 'system';

/** Maps the select's value to the wire's timezone ('' for the system default). */
export function timezoneToWire(value: string): string {
  return value === SYSTEM_TIMEZONE ? '' : value;
}

/** A searchable timezone select offering 'Use System Default' first (spec-notes §9). */
export function TimezoneSelect(props: Omit<SelectProps, 'data'>) {
  const { t } = useTranslation();
  const data = useMemo(
    () => [
      { value: SYSTEM_TIMEZONE, label: t('common.useSystemDefault') },
      ...Intl.supportedValuesOf('timeZone').map((tz) => ({ value: tz, label: tz })),
    ],
    [t],
  );
  return <Select label={t('common.timezone')} searchable allowDeselect={false} data={data} {...props} />;
}
