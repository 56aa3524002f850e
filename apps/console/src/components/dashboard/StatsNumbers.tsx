import type { StatsOverview } from '@cordon/shared';
import { Anchor, Paper, SimpleGrid, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useFormat } from '../format.ts';

const ITEMS = [
  { key: 'requests', label: 'dashboard.requests', testId: 'stat-requests' },
  { key: 'unique_domains', label: 'dashboard.uniqueDomains', testId: 'stat-unique-domains' },
  { key: 'allowed', label: 'dashboard.allowed', testId: 'stat-allowed' },
  { key: 'blocked', label: 'dashboard.blocked', testId: 'stat-blocked' },
] as const;

/**
 * The four overview numbers (spec-notes §3 "Stats"), shown with the spec-notes §9 count formatter; each
 * carries its raw integer in `data-value` and `title`. With `linkFor`, each number links to what it
 * counts (issue 29 drill-down: the history of that action and period).
 */
export function StatsNumbers({
  stats,
  linkFor,
}: {
  stats: StatsOverview;
  linkFor?: (key: keyof StatsOverview) => string;
}) {
  const { t } = useTranslation();
  const fmt = useFormat();
  return (
    <SimpleGrid cols={{ base: 2, md: 4 }} mb="lg">
      {ITEMS.map((item) => {
        const value = stats[item.key];
        return (
          <Paper key={item.key} withBorder p="md" radius="md">
            <Text size="sm" c="dimmed" id={`${item.testId}-label`}>
              {t(item.label)}
            </Text>
            <Text
              fz={28}
              fw={700}
              data-testid={item.testId}
              data-value={value}
              aria-labelledby={`${item.testId}-label`}
              title={String(value)}
            >
              {linkFor ? (
                <Anchor
                  component={Link}
                  to={linkFor(item.key)}
                  inherit
                  underline="hover"
                  data-testid={`${item.testId}-link`}
                >
                  {fmt.count(value)}
                </Anchor>
              ) : (
                fmt.count(value)
              )}
            </Text>
          </Paper>
        );
      })}
    </SimpleGrid>
  );
}
