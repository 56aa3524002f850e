import { Constants, type StatsOverview } from '@cordon/shared';
import { Anchor, Group, Paper, SimpleGrid, Text } from '@mantine/core';
import { IconArrowDownRight, IconArrowRight, IconArrowUpRight } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { type Formatter, useFormat } from '../format.ts';
import { sparkPoints, type Trend } from './trend.ts';

const ITEMS = [
  {
    key: 'requests',
    label: 'dashboard.requests',
    testId: 'stat-requests',
    colour: 'var(--mantine-primary-color-filled)',
  },
  { key: 'unique_domains', label: 'dashboard.uniqueDomains', testId: 'stat-unique-domains', colour: '' },
  { key: 'allowed', label: 'dashboard.allowed', testId: 'stat-allowed', colour: Constants.allowedColour },
  { key: 'blocked', label: 'dashboard.blocked', testId: 'stat-blocked', colour: Constants.blockedColour },
] as const;

type Key = keyof StatsOverview;

const SPARK_W = 120;
const SPARK_H = 28;

/** The period's series as a small line (decorative: the numbers and the charts below carry the data). */
function Sparkline({ values, colour, testId }: { values: readonly number[]; colour: string; testId: string }) {
  const points = sparkPoints(values, SPARK_W, SPARK_H);
  if (!points) return null;
  return (
    <svg
      width="100%"
      height={SPARK_H}
      viewBox={`0 0 ${SPARK_W} ${SPARK_H}`}
      preserveAspectRatio="none"
      aria-hidden="true"
      focusable="false"
      data-testid={`${testId}-spark`}
      style={{ display: 'block', marginTop: 6 }}
    >
      <polyline
        points={`0,${SPARK_H} ${points} ${SPARK_W},${SPARK_H}`}
        fill={colour}
        fillOpacity={0.12}
        stroke="none"
      />
      <polyline points={points} fill="none" stroke={colour} strokeWidth={1.75} vectorEffect="non-scaling-stroke" />
    </svg>
  );
}

/** "+50 % vs the day before" in words (the arrow is decorative), or the day before's count when it was 0. */
function TrendLine({ trend, fmt, testId }: { trend: Trend; fmt: Formatter; testId: string }) {
  const { t } = useTranslation();
  const Icon =
    trend.ratio === null || trend.ratio === 0
      ? IconArrowRight
      : trend.ratio > 0
        ? IconArrowUpRight
        : IconArrowDownRight;
  const text =
    trend.ratio === null
      ? t('dashboard.trendDayBeforeCount', { value: fmt.count(trend.previous) })
      : t('dashboard.trendVsDayBefore', {
          change: fmt.number(trend.ratio, { style: 'percent', maximumFractionDigits: 0, signDisplay: 'exceptZero' }),
        });
  return (
    <Group gap={4} wrap="nowrap" mt={2} data-testid={`${testId}-trend`} data-ratio={trend.ratio ?? ''}>
      <Icon size={14} aria-hidden stroke={2} />
      <Text size="xs" c="dimmed">
        {text}
      </Text>
    </Group>
  );
}

/**
 * The four overview numbers (spec-notes §3 "Stats"), shown with the spec-notes §9 count formatter; each
 * carries its raw integer in `data-value` and `title`. With `linkFor`, each number links to what it
 * counts (issue 29 drill-down: the history of that action and period). With `trends`, a number shows
 * its change against the previous equal period; with `series`, a sparkline of the period (issue 29
 * visual identity).
 */
export function StatsNumbers({
  stats,
  linkFor,
  trends,
  series,
}: {
  stats: StatsOverview;
  linkFor?: (key: Key) => string;
  trends?: Partial<Record<Key, Trend | null>>;
  series?: Partial<Record<Key, readonly number[]>>;
}) {
  const { t } = useTranslation();
  const fmt = useFormat();
  return (
    <SimpleGrid cols={{ base: 2, md: 4 }} mb="lg" spacing="md">
      {ITEMS.map((item) => {
        const value = stats[item.key];
        const trend = trends?.[item.key];
        const values = series?.[item.key];
        return (
          <Paper key={item.key} withBorder p="md" radius="md" shadow="xs">
            <Text
              size="xs"
              tt="uppercase"
              fw={600}
              c="dimmed"
              style={{ letterSpacing: '0.04em' }}
              id={`${item.testId}-label`}
            >
              {t(item.label)}
            </Text>
            <Text
              fz={28}
              fw={700}
              lh={1.2}
              mt={4}
              style={{ fontVariantNumeric: 'tabular-nums' }}
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
            {trend ? <TrendLine trend={trend} fmt={fmt} testId={item.testId} /> : null}
            {values && item.colour ? <Sparkline values={values} colour={item.colour} testId={item.testId} /> : null}
          </Paper>
        );
      })}
    </SimpleGrid>
  );
}
