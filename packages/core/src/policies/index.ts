/** Policies (spec-notes §7 "Policies"): a customer's policies, their blocked categories and the default policy. */

export {
  createDefaultPolicy,
  createMspDefaultPolicy,
  getDefaultPolicy,
  getDefaultPolicyCategories,
  getDefaultPolicyCategory,
  setCategoryLevel,
  setDefaultPolicyCategories,
  updateDefaultPolicy,
} from './defaults.ts';
export { policyOfCustomer } from './repository.ts';
export {
  createPolicy,
  customerFor,
  DEFAULT_POLICY_NAME,
  defaultPolicyIdFor,
  deletePolicy,
  getPolicy,
  getPolicyCategories,
  listPolicies,
  patchCustomerPolicy,
  policyDependants,
  setPolicyCategories,
  updatePolicy,
} from './service.ts';
