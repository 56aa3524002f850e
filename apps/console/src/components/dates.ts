/**
 * The date functions' first home, kept so imports written before the formatting module keep
 * working; new code imports `./format.ts` (issue 29 "One way to show dates and numbers").
 */
export { formatDate, formatDateTime, formatHour, formatLogTime, userTimeZone } from './format.ts';
