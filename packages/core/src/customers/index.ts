/** Customers (spec-notes §7 "Customers"; a "user" on the wire): with their default policy and primary admin. */
export {
  createCustomer,
  customerDependants,
  deleteCustomer,
  getCustomer,
  licenceExceeded,
  listCustomers,
  mspAccount,
  updateCustomer,
} from './service.ts';
