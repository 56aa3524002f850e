import { Constants, type Report, shortenDomain } from '@cordon/shared';
import { BarChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import ReactEChartsCore from 'echarts-for-react/lib/core';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { formatCount } from '../../components/format.ts';
import { reportHourName } from './reportRows.ts';

echarts.use([BarChart, GridComponent, LegendComponent, TooltipComponent, SVGRenderer]);

/**
 * A report's chart: trend reports as vertical stacked bars in time order, the others as horizontal
 * stacked bars of their first 10 rows (domains shortened per spec-notes §9); allowed #4BA7EE and blocked
 * #DE3617 (spec-notes §9).
 */
export function ReportChart({ report, label }: { report: Report; label: string }) {
  const { t, i18n } = useTranslation();
  const trend = report.type === 'trend';
  const option = useMemo(() => {
    const rows = trend ? report.rows : report.rows.slice(0, 10).reverse();
    const names = rows.map((r) =>
      report.dimension === 'hour'
        ? reportHourName(r.key, report.timezone, i18n.language)
        : /domain|url/.test(report.dimension)
          ? shortenDomain(r.name)
          : r.name,
    );
    const series = [
      { name: t('reports.allowed'), type: 'bar', stack: 'n', data: rows.map((r) => r.allowed) },
      { name: t('reports.blocked'), type: 'bar', stack: 'n', data: rows.map((r) => r.blocked) },
    ];
    const category = {
      type: 'category',
      data: names,
      axisLabel: { hideOverlap: true, width: 120, overflow: 'truncate' },
    };
    // Counts with the spec-notes §9 formatter (1.2k); labels that would collide on a phone are dropped.
    const value = {
      type: 'value',
      minInterval: 1,
      axisLabel: { formatter: (v: number) => formatCount(v, i18n.language), hideOverlap: true },
    };
    return {
      color: [Constants.allowedColour, Constants.blockedColour],
      tooltip: { trigger: 'axis' },
      legend: { bottom: 0 },
      grid: { left: 8, right: 16, top: 8, bottom: 40, containLabel: true },
      xAxis: trend ? category : value,
      yAxis: trend ? value : category,
      series,
    };
  }, [report, trend, t, i18n.language]);
  const height = trend ? 300 : Math.max(160, Math.min(report.rows.length, 10) * 30 + 60);
  return (
    <figure aria-label={label} data-testid="report-chart" style={{ margin: 0 }}>
      <ReactEChartsCore echarts={echarts} option={option} style={{ height }} notMerge />
    </figure>
  );
}
