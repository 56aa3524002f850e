import { Constants, type StatsHistory, type StatsTraffic } from '@cordon/shared';
import { Text } from '@mantine/core';
import { BarChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import ReactEChartsCore from 'echarts-for-react/lib/core';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { type Formatter, useFormat } from '../format.ts';

// Only what these charts need, so the chart chunk stays small (bench/README.md).
echarts.use([BarChart, GridComponent, LegendComponent, TooltipComponent, SVGRenderer]);

/** Stacked allowed/blocked bars in the spec's colours (spec-notes §9: allowed #4BA7EE, blocked #DE3617). */
function stackedOption(
  labels: string[],
  allowed: number[],
  blocked: number[],
  names: [string, string],
  fmt: Formatter,
) {
  return {
    color: [Constants.allowedColour, Constants.blockedColour],
    tooltip: { trigger: 'axis' },
    legend: { bottom: 0 },
    grid: { left: 8, right: 8, top: 16, bottom: 40, containLabel: true },
    xAxis: { type: 'category', data: labels, axisLabel: { hideOverlap: true } },
    // Axis counts with the spec-notes §9 formatter (1.2k) in the language, like the numbers beside the charts.
    yAxis: { type: 'value', minInterval: 1, axisLabel: { formatter: (v: number) => fmt.count(v), hideOverlap: true } },
    series: [
      { name: names[0], type: 'bar', stack: 'requests', data: allowed },
      { name: names[1], type: 'bar', stack: 'requests', data: blocked },
    ],
  };
}

/** Allowed vs blocked requests per hour (spec-notes §3 "Stats" traffic). */
export function TrafficChart({ traffic, label }: { traffic: StatsTraffic; label: string }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const option = useMemo(() => {
    // Hours in the formatter's zone (the profile's, else the tenant's), like every other time shown.
    const withDate = traffic.data.length > 25;
    return stackedOption(
      traffic.data.map((p) => fmt.hour(p.time, withDate)),
      traffic.data.map((p) => p.allowed),
      traffic.data.map((p) => p.blocked),
      [t('dashboard.allowed'), t('dashboard.blocked')],
      fmt,
    );
  }, [traffic, t, fmt]);
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
  const option = useMemo(
    () =>
      stackedOption(
        history.data.map((d) => fmt.day(d.date)),
        history.data.map((d) => d.allowed),
        history.data.map((d) => d.blocked),
        [t('dashboard.allowed'), t('dashboard.blocked')],
        fmt,
      ),
    [history, t, fmt],
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
