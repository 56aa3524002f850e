import { type MantineColorScheme, useMantineColorScheme } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { DeferredSelect } from './Deferred.tsx';

const SCHEMES: readonly MantineColorScheme[] = ['light', 'dark', 'auto'];

/**
 * The header's colour-scheme picker (issue 29 visual identity): light, dark or the system's ("auto").
 * Mantine's colour-scheme manager applies the choice at once and remembers it in the browser
 * (`cordon-color-scheme`, see App.tsx). A labelled select, keyboard usable like the language picker.
 */
export function ColorSchemePicker() {
  const { t } = useTranslation();
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  return (
    <DeferredSelect
      aria-label={t('app.colorScheme')}
      data={SCHEMES.map((s) => ({ value: s, label: t(`app.colorSchemes.${s}`) }))}
      value={colorScheme}
      allowDeselect={false}
      onChange={(value) => {
        if (value) setColorScheme(value as MantineColorScheme);
      }}
      size="xs"
      w={110}
      comboboxProps={{ withinPortal: true }}
      data-testid="color-scheme-picker"
    />
  );
}
