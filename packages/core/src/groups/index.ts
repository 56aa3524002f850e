/** Groups (spec-notes §7 "Groups and internal users"; spec-notes §4 "Group weight"): a customer's groups and their ranking. */

export { groupIdsOfCustomer } from './repository.ts';
export { createGroup, deleteGroup, getGroup, groupDependants, listGroups, updateGroup } from './service.ts';
