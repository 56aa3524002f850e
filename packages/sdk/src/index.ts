/**
 * @cordon/sdk — a small typed client of Cordon's `/restapi` for automation (issue 26; README.md):
 * `createClient({ baseUrl, token })` with an API token, calls typed from the same endpoint
 * descriptors the server registers (`Endpoints` of `@cordon/shared`, re-exported here).
 */
export { Endpoints } from '@cordon/shared';
export {
  type CallArgs,
  type CallInput,
  type ClientOptions,
  CordonApiError,
  type CordonClient,
  createClient,
  type Namespaces,
} from './client.ts';
