import { Anchor, Paper, SimpleGrid, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { PageHeader } from '../../components/PageHeader.tsx';
import { MENUS, type NavItem } from '../navigation.ts';

/**
 * A settings index page (spec-notes §2: the MSP's `global_settings` index and the customer's `settings`
 * index): one card per page of the menu group at `groupPath`, linked when built, marked "Not
 * available yet" otherwise. The list is the menu's, so the two never disagree.
 */
export function SettingsIndex({ area, groupPath }: { area: 'msp' | 'customer'; groupPath: string }) {
  const { t } = useTranslation();
  const group = MENUS[area].find((item) => item.path === groupPath);
  const items: readonly NavItem[] = group?.children ?? [];
  return (
    <>
      <PageHeader />
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} data-testid="settings-index">
        {items.map((item) => (
          <Paper key={item.path} withBorder p="md" radius="md">
            {item.ready ? (
              <Anchor component={Link} to={item.path} fw={600}>
                {t(item.labelKey)}
              </Anchor>
            ) : (
              <>
                <Text fw={600}>{t(item.labelKey)}</Text>
                <Text size="sm" c="dimmed">
                  {t('app.notAvailable')}
                </Text>
              </>
            )}
          </Paper>
        ))}
      </SimpleGrid>
    </>
  );
}
