import { Constants, type StatsTraffic } from '@cordon/shared';
import { Text } from '@mantine/core';
import { BarChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import ReactEChartsCore from 'echarts-for-react/lib/core';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';

// Only what this chart needs, so the chart chunk stays small (bench/README.md).
echarts.use([BarChart, GridComponent, LegendComponent, TooltipComponent, SVGRenderer]);

function hourLabel(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${String(d.getHours()).padStart(2, '0')}:00`;
}

/** Allowed vs blocked requests per hour, in the spec's colours (spec §9: allowed #4BA7EE, blocked #DE3617). */
export function TrafficChart({ traffic }: { traffic: StatsTraffic }) {
  const { t } = useTranslation();
  const option = useMemo(
    () => ({
      color: [Constants.allowedColour, Constants.blockedColour],
      tooltip: { trigger: 'axis' },
      legend: { bottom: 0 },
      grid: { left: 48, right: 16, top: 16, bottom: 48 },
      xAxis: { type: 'category', data: traffic.data.map((p) => hourLabel(p.time)) },
      yAxis: { type: 'value', minInterval: 1 },
      series: [
        { name: t('stats.allowed'), type: 'bar', stack: 'requests', data: traffic.data.map((p) => p.allowed) },
        { name: t('stats.blocked'), type: 'bar', stack: 'requests', data: traffic.data.map((p) => p.blocked) },
      ],
    }),
    [traffic, t],
  );
  if (traffic.data.length === 0) return <Text c="dimmed">{t('stats.noTraffic')}</Text>;
  return (
    <figure aria-label={t('stats.chartLabel')} data-testid="traffic-chart" style={{ margin: 0 }}>
      <ReactEChartsCore echarts={echarts} option={option} style={{ height: 320 }} notMerge />
    </figure>
  );
}
