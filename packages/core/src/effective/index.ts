/**
 * The effective policy of a device, an internal user or a location and the chain that chose it, by
 * the resolver's precedence (issue 29 "Why was this blocked / allowed?"; docs/api.md "Effective policy").
 */

export { effectiveOfDevice, effectiveOfLocation, effectiveOfUser } from './service.ts';
