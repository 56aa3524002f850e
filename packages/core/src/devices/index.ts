/**
 * Devices (spec-notes §7 "Devices"): enrolled agents, the customer's install key and device
 * configuration, advanced JSON configurations, and the agent's enrolment and heartbeat.
 */

export {
  customerAdvanced,
  deleteDevice,
  enrolDevice,
  getDevice,
  getDeviceConfig,
  HEARTBEAT_SECONDS,
  heartbeat,
  listDevices,
  regenerateInstallKey,
  setDeviceAdvanced,
  updateDevice,
  updateDeviceConfig,
} from './service.ts';
export { getDeviceUsers, setDeviceUsers } from './users.ts';
