/** Internal users (spec-notes §7 "Groups and internal users"): the people agents report, their policies and groups. */

export {
  deleteInternalUser,
  getInternalUser,
  groupPolicyOf,
  listInternalUsers,
  recordAgentLogin,
  updateInternalUser,
} from './service.ts';
