/**
 * Category notifications (spec-notes §3 "Notification settings"; docs/decisions.md "Category
 * notifications"): each policy's categories, interval, window and recipients, and the worker's
 * digest of blocked hits mailed through the MSP's mail settings.
 */
export {
  DIGEST_MAX_LINES,
  DIGEST_TOP_SOURCES,
  type DigestFigures,
  type DigestLine,
  type DigestOutcome,
  digestFigures,
  digestJob,
  digestMessage,
  runDigests,
} from './digest.ts';
export { getDefaultNotifications, getNotifications, setDefaultNotifications, setNotifications } from './service.ts';
