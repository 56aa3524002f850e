/** Customer statistics (spec §7 "Stats") from the raw query log. */
export { customerOverview, customerTraffic, STATS_FIRST_DAY } from './service.ts';
