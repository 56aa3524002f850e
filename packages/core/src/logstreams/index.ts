/**
 * Per-MSP query-log stream destinations (issue 26; docs/operations.md "Query-log streaming"
 * "Per-MSP destinations"): the MSP's syslog and NDJSON destinations, read by the resolvers' writer threads.
 */
export {
  authorizationHint,
  createLogStream,
  deleteLogStream,
  getLogStream,
  type LogStreamOptions,
  listLogStreams,
  updateLogStream,
} from './service.ts';
