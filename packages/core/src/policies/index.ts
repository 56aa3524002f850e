/** Policies (spec §7 "Policies"): a customer's policies, their blocked categories and the default policy. */
export { policyOfCustomer } from './repository.ts';
export {
  createDefaultPolicy,
  createPolicy,
  customerFor,
  DEFAULT_POLICY_NAME,
  defaultPolicyIdFor,
  deletePolicy,
  getPolicy,
  getPolicyCategories,
  listPolicies,
  setPolicyCategories,
  updatePolicy,
} from './service.ts';
