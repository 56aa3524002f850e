import { Constants, type StatsHistory, type StatsTraffic } from '@cordon/shared';
import { Text, useComputedColorScheme } from '@mantine/core';
import { BarChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import ReactEChartsCore from 'echarts-for-react/lib/core';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { SANS } from '../fonts.ts';
import { type Formatter, useFormat } from '../format.ts';
import { dailyTraffic } from './dailyTraffic.ts';

// Only what these charts need, so the chart chunk stays small (bench/README.md).
echarts.use([BarChart, GridComponent, LegendComponent, TooltipComponent, SVGRenderer]);

/**
 * Text and line colours of the charts in each colour scheme (issue 29 visual identity): axis labels
 * and legend gray 7 on white (7.8:1) and dark 1 on the dark body (7.8:1), like the theme's dimmed
 * text; grid lines gray 2 / dark 5. The bars keep the spec's colours in both (allowed #4BA7EE 5.96:1
 * and blocked #DE3617 3.43:1 on the dark body, WCAG 1.4.11 asks 3:1 of graphics).
 */
const SCHEME_COLOURS = {
  light: {
    text: '#495057',
    line: '#e9ecef',
    axis: '#ced4da',
    tooltipBg: '#ffffff',
    tooltipBorder: '#dee2e6',
    tooltipText: '#212529',
  },
  dark: {
    text: '#b8b8b8',
    line: '#3b3b3b',
    axis: '#424242',
    tooltipBg: '#2e2e2e',
    tooltipBorder: '#424242',
    tooltipText: '#c9c9c9',
  },
} as const;

type SchemeColours = (typeof SCHEME_COLOURS)[keyof typeof SCHEME_COLOURS];

/**
 * The scheme the charts draw in, read at the first render (the charts render in the browser only):
 * read in an effect, "auto" on a dark system drew light, then redrew dark with the bars animating again.
 */
function useChartScheme(): 'light' | 'dark' {
  return useComputedColorScheme('light', { getInitialValueInEffect: false });
}

/** Stacked allowed/blocked bars in the spec's colours (spec-notes §9: allowed #4BA7EE, blocked #DE3617). */
function stackedOption(
  labels: string[],
  allowed: number[],
  blocked: number[],
  names: [string, string],
  fmt: Formatter,
  c: SchemeColours,
) {
  return {
    color: [Constants.allowedColour, Constants.blockedColour],
    // A named font (not 'inherit'): ECharts measures labels with it to hide overlapping ones.
    textStyle: { color: c.text, fontFamily: SANS },
    tooltip: {
      trigger: 'axis',
      backgroundColor: c.tooltipBg,
      borderColor: c.tooltipBorder,
      textStyle: { color: c.tooltipText },
    },
    legend: { bottom: 0, textStyle: { color: c.text } },
    grid: { left: 8, right: 8, top: 16, bottom: 40, containLabel: true },
    xAxis: {
      type: 'category',
      data: labels,
      axisLabel: { hideOverlap: true, color: c.text },
      axisLine: { lineStyle: { color: c.axis } },
      axisTick: { lineStyle: { color: c.axis } },
    },
    // Axis counts with the spec-notes §9 formatter (1.2k) in the language, like the numbers beside the charts.
    yAxis: {
      type: 'value',
      minInterval: 1,
      axisLabel: { formatter: (v: number) => fmt.count(v), hideOverlap: true, color: c.text },
      splitLine: { lineStyle: { color: c.line } },
    },
    series: [
      { name: names[0], type: 'bar', stack: 'requests', data: allowed, barMaxWidth: 28 },
      {
        name: names[1],
        type: 'bar',
        stack: 'requests',
        data: blocked,
        barMaxWidth: 28,
        itemStyle: { borderRadius: [3, 3, 0, 0] },
      },
    ],
  };
}

/**
 * Allowed vs blocked requests (spec-notes §3 "Stats" traffic): per hour, or with `daily` (the 7- and
 * 30-day periods, issue 29) the hours summed into one bar per day, both in the formatter's zone.
 */
export function TrafficChart({
  traffic,
  label,
  daily = false,
}: {
  traffic: StatsTraffic;
  label: string;
  daily?: boolean;
}) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const scheme = useChartScheme();
  const option = useMemo(() => {
    const names: [string, string] = [t('dashboard.allowed'), t('dashboard.blocked')];
    if (daily) {
      const days = dailyTraffic(traffic, fmt.timeZone);
      return stackedOption(
        days.map((d) => fmt.day(d.date)),
        days.map((d) => d.allowed),
        days.map((d) => d.blocked),
        names,
        fmt,
        SCHEME_COLOURS[scheme],
      );
    }
    // Hours in the formatter's zone (the profile's, else the tenant's), like every other time shown.
    const withDate = traffic.data.length > 25;
    return stackedOption(
      traffic.data.map((p) => fmt.hour(p.time, withDate)),
      traffic.data.map((p) => p.allowed),
      traffic.data.map((p) => p.blocked),
      names,
      fmt,
      SCHEME_COLOURS[scheme],
    );
  }, [traffic, daily, t, fmt, scheme]);
  if (traffic.data.every((p) => p.allowed === 0 && p.blocked === 0)) {
    return <Text c="dimmed">{t('dashboard.noTraffic')}</Text>;
  }
  return (
    <figure aria-label={label} data-testid="traffic-chart" style={{ margin: 0 }}>
      <ReactEChartsCore echarts={echarts} option={option} style={{ height: 300 }} notMerge />
    </figure>
  );
}

/** Allowed vs blocked requests per day of the history (spec-notes §9: 5 days); a line of text when nothing was logged. */
export function HistoryChart({ history, label }: { history: StatsHistory; label: string }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const scheme = useChartScheme();
  const option = useMemo(
    () =>
      stackedOption(
        history.data.map((d) => fmt.day(d.date)),
        history.data.map((d) => d.allowed),
        history.data.map((d) => d.blocked),
        [t('dashboard.allowed'), t('dashboard.blocked')],
        fmt,
        SCHEME_COLOURS[scheme],
      ),
    [history, t, fmt, scheme],
  );
  if (history.data.every((d) => d.allowed === 0 && d.blocked === 0)) {
    return <Text c="dimmed">{t('dashboard.noTraffic')}</Text>;
  }
  return (
    <figure aria-label={label} data-testid="history-chart" style={{ margin: 0 }}>
      <ReactEChartsCore echarts={echarts} option={option} style={{ height: 260 }} notMerge />
    </figure>
  );
}
