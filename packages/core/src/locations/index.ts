/** Locations (spec §7 "Locations"): static-IP locations, their addresses and the claim rules. */

export { CLAIM_LOCK_KEY } from './repository.ts';
export {
  addAddress,
  createStaticLocation,
  deleteAddress,
  deleteStaticLocation,
  getStaticLocation,
  type LocationDeps,
  listAddresses,
  listLocations,
  updateStaticLocation,
} from './service.ts';
