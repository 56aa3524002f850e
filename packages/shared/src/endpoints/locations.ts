import { Role } from '../roles.ts';
import { deletedResponseSchema, idParamsSchema, listOf, listQuerySchema } from '../schemas/common.ts';
import {
  locationAddressCreateSchema,
  locationAddressParamsSchema,
  locationAddressSchema,
  locationParamsSchema,
  locationSchema,
  locationTypeParamsSchema,
  staticIpLocationCreateSchema,
  staticIpLocationUpdateSchema,
} from '../schemas/location.ts';
import { defineEndpoint } from './define.ts';

const tag = 'locations';
/** The guard checks customer `id` is visible; the repository scopes every query by tenant and customer. */
const access = { scope: 'customer', roles: [Role.System, Role.Msp, Role.Customer] } as const;

/** Locations (spec §7 "Locations") under `/users/{id}/locations`. Updates are POSTs, as the spec's are. */
export const locationEndpoints = {
  list: defineEndpoint({
    method: 'GET',
    path: '/users/:id/locations/:type',
    params: locationTypeParamsSchema,
    query: listQuerySchema,
    response: listOf(locationSchema),
    status: 200,
    access,
    tag,
    summary: "A customer's locations of one type, or all (spec §7 Locations).",
  }),
  createStatic: defineEndpoint({
    method: 'POST',
    path: '/users/:id/locations/staticip',
    params: idParamsSchema,
    body: staticIpLocationCreateSchema,
    response: locationSchema,
    status: 201,
    access,
    tag,
    summary: 'Create a static-IP location with its addresses (spec §7 Locations).',
  }),
  getStatic: defineEndpoint({
    method: 'GET',
    path: '/users/:id/locations/staticip/:locId',
    params: locationParamsSchema,
    response: locationSchema,
    status: 200,
    access,
    tag,
    summary: 'One static-IP location (spec §7 Locations).',
  }),
  updateStatic: defineEndpoint({
    method: 'POST',
    path: '/users/:id/locations/staticip/:locId',
    params: locationParamsSchema,
    body: staticIpLocationUpdateSchema,
    response: locationSchema,
    status: 200,
    access,
    tag,
    summary: 'Update a static-IP location; `addresses` replaces the set (spec §7 Locations).',
  }),
  removeStatic: defineEndpoint({
    method: 'DELETE',
    path: '/users/:id/locations/staticip/:locId',
    params: locationParamsSchema,
    response: deletedResponseSchema,
    status: 200,
    access,
    tag,
    summary: 'Delete a static-IP location (spec §7 Locations).',
  }),
  listAddresses: defineEndpoint({
    method: 'GET',
    path: '/users/:id/locations/staticip/:locId/addresses',
    params: locationParamsSchema,
    response: listOf(locationAddressSchema),
    status: 200,
    access,
    tag,
    summary: "A static-IP location's addresses (spec §7 Locations).",
  }),
  addAddress: defineEndpoint({
    method: 'POST',
    path: '/users/:id/locations/staticip/:locId/addresses',
    params: locationParamsSchema,
    body: locationAddressCreateSchema,
    response: locationAddressSchema,
    status: 201,
    access,
    tag,
    summary: 'Add an address to a static-IP location (spec §7 Locations).',
  }),
  removeAddress: defineEndpoint({
    method: 'DELETE',
    path: '/users/:id/locations/staticip/:locId/addresses/:addrId',
    params: locationAddressParamsSchema,
    response: deletedResponseSchema,
    status: 200,
    access,
    tag,
    summary: 'Remove an address; a static-IP location keeps at least one (spec §7 Locations).',
  }),
} as const;
