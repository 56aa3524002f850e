/** Device exceptions and their rules (spec-notes §7 "Device exceptions"; spec-notes §3 "Exception rule"). */

export { exceptionOfCustomer, rulesForAgent } from './repository.ts';
export {
  createDeviceException,
  createExceptionRule,
  deleteDeviceException,
  deleteExceptionRule,
  deviceExceptionDependants,
  getDeviceException,
  listDeviceExceptions,
  listExceptionRules,
  updateDeviceException,
  updateExceptionRule,
} from './service.ts';
