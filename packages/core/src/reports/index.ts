/** Reports (spec-notes §3 "Report types"): report data from the roll-ups, PDFs, scheduled reports and their archive. */
export { buildReport, getReport, periodOf, REPORT_MAX_DAYS, type ReportPeriod, requestedPeriod } from './data.ts';
export { type PdfBranding, renderReportPdf, reportTitle } from './pdf.ts';
export { POWERBI_SETTING, powerBiConfig, powerBiEmbed, setPowerBiEmbedUrl } from './powerbi.ts';
export {
  ARCHIVE_MONTHS,
  archivedPdf,
  createScheduled,
  deleteScheduled,
  getScheduled,
  listArchive,
  listScheduled,
  oneOffPdf,
  periodFor,
  recipientsLanguage,
  reportPdf,
  requesterLanguage,
  runScheduled,
  scheduledReportsJob,
  sendScheduled,
  updateScheduled,
  withCategoryNames,
} from './scheduled.ts';
