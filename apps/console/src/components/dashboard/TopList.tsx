import { Constants, type StatsTop, shortenDomain } from '@cordon/shared';
import { Anchor, Group, Paper, Progress, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useFormat } from '../format.ts';

/**
 * One top list (spec-notes §3 "Stats": top categories, domains or users by allowed or blocked): the name
 * (a domain shortened per spec-notes §9, the full name in its title), the count (spec-notes §9 formatter) and a
 * bar in the action's colour (spec-notes §9: allowed #4BA7EE, blocked #DE3617) relative to the first.
 * With `linkFor`, an entry's name links to the history filtered to it (issue 29 drill-down; null:
 * no link for that entry); `linkLabel` names where it leads (default "History of …"), `onLinkClick`
 * runs as one is followed.
 */
export function TopList({
  title,
  top,
  action,
  domains,
  testId,
  linkFor,
  linkLabel,
  onLinkClick,
}: {
  title: string;
  top: StatsTop;
  action: 'allowed' | 'blocked';
  domains: boolean;
  testId: string;
  linkFor?: (item: StatsTop['data'][number]) => string | null;
  linkLabel?: (name: string) => string;
  onLinkClick?: () => void;
}) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const max = top.data[0]?.count ?? 0;
  const colour = action === 'allowed' ? Constants.allowedColour : Constants.blockedColour;
  return (
    <Paper withBorder p="md" radius="md" data-testid={testId}>
      <Title order={3} size="h5" mb="sm">
        {title}
      </Title>
      {top.data.length === 0 ? (
        <Text c="dimmed" size="sm">
          {t('dashboard.noData')}
        </Text>
      ) : (
        <Stack gap={6} component="ol" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
          {top.data.map((item) => {
            const to = linkFor?.(item) ?? null;
            const name = domains ? shortenDomain(item.name) : item.name;
            return (
              <li key={item.key}>
                <Group justify="space-between" wrap="nowrap" gap="xs">
                  <Text size="sm" truncate title={item.name}>
                    {to ? (
                      <Anchor
                        component={Link}
                        to={to}
                        inherit
                        {...(onLinkClick ? { onClick: onLinkClick } : {})}
                        aria-label={linkLabel ? linkLabel(item.name) : t('dashboard.drill', { name: item.name })}
                      >
                        {name}
                      </Anchor>
                    ) : (
                      name
                    )}
                  </Text>
                  <Text size="sm" fw={600} title={String(item.count)}>
                    {fmt.count(item.count)}
                  </Text>
                </Group>
                <Progress
                  value={max > 0 ? (item.count / max) * 100 : 0}
                  color={colour}
                  size="sm"
                  aria-label={`${item.name}: ${item.count}`}
                />
              </li>
            );
          })}
        </Stack>
      )}
    </Paper>
  );
}
