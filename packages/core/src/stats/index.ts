/** Statistics (spec-notes §7 "Stats") from the hourly roll-ups of the query log (docs/api.md "Stats"), and the history search. */

export { mspBreakdown, systemBreakdown } from './breakdown.ts';
export { customerStatuses, SILENT_AFTER_MS } from './customers.ts';
export { searchHistory } from './history.ts';
export { hllAdd, hllCount, hllCreate, hllMerge } from './hll.ts';
export { userKeyNames } from './repository.ts';
export {
  customerOverview,
  customerTraffic,
  history,
  LOCATION_STATS_MAX_DAYS,
  locationOverview,
  locationTop,
  overview,
  rangeIn,
  STATS_FIRST_DAY,
  type StatsOwner,
  topList,
  traffic,
} from './service.ts';
