/** Locations (spec-notes §7 "Locations"): static-IP locations, their addresses and the claim rules. */

export { CLAIM_LOCK_KEY } from './repository.ts';
export {
  addAddress,
  applyResolvedAddresses,
  createLocation,
  createStaticLocation,
  deleteAddress,
  deleteLocationOfType,
  deleteStaticLocation,
  dynDnsUpdate,
  getLocationOfType,
  getStaticLocation,
  type LocationDeps,
  listAddresses,
  listDynamicDnsLocations,
  listLocations,
  locationDependants,
  newLocationKey,
  updateLocationOfType,
  updateStaticLocation,
} from './service.ts';
