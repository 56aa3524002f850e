import { Button, Stack, Text, Title } from '@mantine/core';
import { IconHammer } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/**
 * An unknown path inside an area (`/customer/…`, `/msp/…`): shown inside the area's frame, with its
 * header and menu, so a typed URL of a page not built yet never drops the user out of the console
 * (docs/architecture.md "Console"). `home` is the area's first page.
 */
export function AreaNotAvailable({ home }: { home: string }) {
  const { t } = useTranslation();
  return (
    <Stack align="flex-start" gap="sm" py="xl" data-testid="area-not-available">
      <IconHammer size={32} aria-hidden />
      <Title order={1} size="h2">
        {t('pages.notAvailable')}
      </Title>
      <Text c="dimmed">{t('app.notAvailableText')}</Text>
      <Button component={Link} to={home} variant="light">
        {t('app.backToArea')}
      </Button>
    </Stack>
  );
}
