import { Badge, type MantineSize } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/**
 * The status labels the console shows (spec-notes §3, §7): an account or key `active`/`inactive`, a
 * setting `enabled`/`disabled`, an MSP or customer `onHold`, a report `sent`/`reportNotSent`, a
 * domain or query `allowed`/`blocked`.
 */
export type Status =
  | 'active'
  | 'inactive'
  | 'enabled'
  | 'disabled'
  | 'onHold'
  | 'sent'
  | 'reportNotSent'
  | 'allowed'
  | 'blocked';

/** Colour of each status: green for the good state, grey for off, orange for attention, red for blocked. */
const COLORS: Readonly<Record<Status, string>> = {
  active: 'teal',
  inactive: 'gray',
  enabled: 'teal',
  disabled: 'gray',
  onHold: 'orange',
  sent: 'teal',
  reportNotSent: 'orange',
  allowed: 'teal',
  blocked: 'red',
};

/**
 * One status label, the same everywhere: its text from `status.<name>` and its colour from {@link COLORS},
 * shown as a dot beside text in the body colour, which reads at any size (WCAG 1.4.3: coloured text on a
 * pale badge falls under 4.5:1 at badge sizes).
 */
export function StatusBadge({ status, size }: { status: Status; size?: MantineSize }) {
  const { t } = useTranslation();
  return (
    <Badge variant="dot" color={COLORS[status]} size={size ?? 'sm'} miw="max-content" data-status={status}>
      {t(`status.${status}`)}
    </Badge>
  );
}
