import {
  type CSSVariablesResolver,
  createTheme,
  defaultVariantColorsResolver,
  type FileInputProps,
  type MantineColorsTuple,
  type MantineThemeComponent,
  type ModalProps,
  type MultiSelectProps,
  type NotificationProps,
  type PaperProps,
  type SelectProps,
  type TableProps,
  type VariantColorsResolver,
} from '@mantine/core';
import { MONO, SANS } from '../components/fonts.ts';

/**
 * One component's default props in the theme. The theme names the component rather than importing
 * it for `Component.extend` (an identity function): importing MultiSelect, FileInput or Modal put
 * them, with their combobox and modal code, in the first load of every page (bench/README.md
 * "Console first load"). `P` checks the props against the component's own.
 */
function withDefaultProps<P>(
  defaultProps: Partial<P>,
  styles?: MantineThemeComponent['styles'],
): MantineThemeComponent {
  return styles ? { defaultProps, styles } : { defaultProps };
}

/**
 * Cordon's brand colour, a deep "harbour" blue-teal (issue 29 visual identity). WCAG 2.1 contrast,
 * computed with the relative-luminance formula of WCAG 2.1 §1.4.3 (white #fff, dark body #242424):
 *
 * | shade | hex     | white text on it | on white | on dark body |
 * |-------|---------|------------------|----------|--------------|
 * | 2     | #a3cde2 | 1.70             | 1.70     | 9.16         |
 * | 3     | #70b2d3 | 2.33             | 2.33     | 6.65         |
 * | 4     | #4a9cc7 | 3.06             | 3.06     | 5.08         |
 * | 6     | #1f78ad | 4.83             | 4.83     | 3.21         |
 * | 7     | #136695 | 6.25             | 6.25     | 2.49         |
 *
 * Light scheme: shade 7 fills buttons (white label 6.25:1, the button 6.25:1 against the page) and
 * colours links (6.25:1, 5.9:1 on the gray-0 page behind cards). Dark scheme: shade 6 fills buttons
 * (white label 4.83:1, the button 3.21:1 against the page, 1.4.11 asks 3:1) and links take shade 2
 * (#a3cde2: 9.16:1 on the body, 8.01:1 on dark 6, 6.61:1 on a hovered table row, dark 5).
 */
export const BRAND: MantineColorsTuple = [
  '#e8f3f8',
  '#d2e6f0',
  '#a3cde2',
  '#70b2d3',
  '#4a9cc7',
  '#3189bd',
  '#1f78ad',
  '#136695',
  '#0b557d',
  '#044365',
];

/**
 * Filled red buttons (the confirmations of deletes and resets) on red 9 (#c92a2a): white text on it
 * is 5.4:1, where red 7 gives 3.9:1 and fails WCAG 1.4.3; every other variant as Mantine resolves it.
 */
const resolveVariantColors: VariantColorsResolver = (input) => {
  const colors = defaultVariantColorsResolver(input);
  if (input.variant === 'filled' && input.color === 'red') {
    return {
      ...colors,
      background: 'var(--mantine-color-red-9)',
      hover: '#a61e1e',
      color: 'var(--mantine-color-white)',
    };
  }
  return colors;
};

/**
 * The console's theme (issue 29 visual identity): the brand scale above as primary colour, a system
 * font stack with a tighter heading scale, medium radius, bordered cards and compact tables with row
 * hover. Accessibility (WCAG 2.1 AA, 1.4.3 contrast and 4.1.2 names): every dialog's and toast's close
 * button is named `closeLabel`, and every clearable input's clear button `clearLabel`, in the user's language.
 */
export function createConsoleTheme(closeLabel: string, clearLabel = 'Clear') {
  return createTheme({
    colors: { brand: BRAND },
    primaryColor: 'brand',
    primaryShade: { light: 7, dark: 6 },
    variantColorResolver: resolveVariantColors,
    // WCAG 2.1 2.3.3: a user who asks the system for less motion gets dialogs and menus without fades.
    respectReducedMotion: true,
    fontFamily: SANS,
    fontFamilyMonospace: MONO,
    defaultRadius: 'md',
    fontSizes: { xs: '0.75rem', sm: '0.8125rem', md: '0.875rem', lg: '1rem', xl: '1.125rem' },
    lineHeights: { xs: '1.4', sm: '1.45', md: '1.5', lg: '1.55', xl: '1.6' },
    spacing: { xs: '0.5rem', sm: '0.75rem', md: '1rem', lg: '1.25rem', xl: '1.75rem' },
    headings: {
      fontFamily: SANS,
      fontWeight: '650',
      sizes: {
        h1: { fontSize: '1.625rem', lineHeight: '1.25' },
        h2: { fontSize: '1.25rem', lineHeight: '1.3' },
        h3: { fontSize: '1.0625rem', lineHeight: '1.35' },
        h4: { fontSize: '0.9375rem', lineHeight: '1.4' },
      },
    },
    components: {
      Modal: withDefaultProps<ModalProps>({ closeButtonProps: { 'aria-label': closeLabel } }),
      Notification: withDefaultProps<NotificationProps>({ closeButtonProps: { 'aria-label': closeLabel } }),
      FileInput: withDefaultProps<FileInputProps>({ clearButtonProps: { 'aria-label': clearLabel } }),
      Select: withDefaultProps<SelectProps>({ clearButtonProps: { 'aria-label': clearLabel } }),
      MultiSelect: withDefaultProps<MultiSelectProps>({ clearButtonProps: { 'aria-label': clearLabel } }),
      Paper: withDefaultProps<PaperProps>({ radius: 'md' }),
      Table: withDefaultProps<TableProps>(
        { highlightOnHover: true, verticalSpacing: 'xs' },
        {
          th: { fontWeight: 600 },
        },
      ),
      // Cards stand on a slightly darker page (light gray 0, dark 8) so a dashboard reads as cards.
      AppShell: {
        styles: {
          main: { background: 'light-dark(var(--mantine-color-gray-0), var(--mantine-color-dark-8))' },
          header: { boxShadow: 'var(--mantine-shadow-xs)' },
        },
      },
    },
  });
}

/** The palette colours whose `light` variant (status labels, light buttons, alerts) gets shade-9 text. */
const LIGHT_VARIANT_COLORS = [
  'dark',
  'gray',
  'red',
  'pink',
  'grape',
  'violet',
  'indigo',
  'blue',
  'brand',
  'cyan',
  'teal',
  'green',
  'lime',
  'yellow',
  'orange',
] as const;

/** Colours whose shade 9 is still under 4.5:1 on their shade 0 (green 4.1, orange 4.1): their light text is dark. */
const PALE_SHADE_9: ReadonlySet<string> = new Set(['green', 'lime', 'yellow', 'orange']);

/**
 * The "dimmed" grey text is gray 7 (7.5:1 on white) instead of gray 6 (3.32:1), field errors red 9
 * (5.5:1) instead of red 6 (3.3:1), and the colours of the light variants (status labels, light
 * buttons, alerts) are drawn on the colour's shade 0 with its shade 9 text (teal 6 on a 10 % teal wash
 * was 2.9:1; teal 9 on teal 0 is 4.7:1), WCAG 1.4.3. Dark scheme: dimmed is dark 1 (#b8b8b8, 7.8:1 on
 * the #242424 body, 8.3:1 on dark 8) and errors red 4 (#ff8787, 6.7:1 on the body).
 */
export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    // Field errors and required marks: red 9 (5.5:1 on white) instead of red 6 (3.3:1).
    '--mantine-color-error': 'var(--mantine-color-red-9)',
    ...Object.fromEntries(
      LIGHT_VARIANT_COLORS.flatMap((c) => [
        [`--mantine-color-${c}-light`, `var(--mantine-color-${c}-0)`],
        [`--mantine-color-${c}-light-hover`, `var(--mantine-color-${c}-1)`],
        [
          `--mantine-color-${c}-light-color`,
          PALE_SHADE_9.has(c) ? 'var(--mantine-color-dark-7)' : `var(--mantine-color-${c}-9)`,
        ],
      ]),
    ),
  },
  dark: {
    // Links brand 2 (#a3cde2): 9.16:1 on the body, 6.61:1 on a hovered table row (dark 5); brand 4,
    // Mantine's default, fell to 3.67:1 there (axe, a dark pass over the platform pages).
    '--mantine-color-anchor': 'var(--mantine-color-brand-2)',
    '--mantine-color-dimmed': 'var(--mantine-color-dark-1)',
    '--mantine-color-error': 'var(--mantine-color-red-4)',
  },
});
