import { defineModule } from '../../http/module.ts';
import { registerLocationRoutes, registerPublicLocationRoutes } from './routes.ts';

const location = { name: 'Intruder', addresses: ['192.0.2.0/24'] };

/**
 * Locations (spec-notes §7 "Locations"): a customer's locations of every type, static-IP addresses, and
 * the public DynDNS-compatible update URL of dynamic-IP locations.
 */
export const locationModule = defineModule({
  name: 'locations',
  resources: ['locations'],
  registerPublic: registerPublicLocationRoutes,
  register: registerLocationRoutes,
  isolationCases: {
    'locations.rateLimits': [{ params: (_, b) => ({ id: b.customerId }), msp: 404, customer: 404, sales: 403 }],
    'locations.list': [{ params: (_, b) => ({ id: b.customerId, type: 'all' }), msp: 404, customer: 404, sales: 403 }],
    'locations.createStatic': [
      { params: (_, b) => ({ id: b.customerId }), body: () => location, msp: 404, customer: 404, sales: 403 },
      {
        note: "own customer, another tenant's policy: a field error, as for a missing policy",
        params: (a) => ({ id: a.customerId }),
        body: (_, b) => ({ ...location, policy_id: b.policyId }),
        msp: 400,
        customer: 400,
      },
    ],
    'locations.getStatic': [
      { params: (_, b) => ({ id: b.customerId, locId: b.locationId }), msp: 404, customer: 404, sales: 403 },
      {
        note: 'own customer, foreign location',
        params: (a, b) => ({ id: a.customerId, locId: b.locationId }),
        msp: 404,
        customer: 404,
      },
    ],
    'locations.updateStatic': [
      {
        params: (_, b) => ({ id: b.customerId, locId: b.locationId }),
        body: () => location,
        msp: 404,
        customer: 404,
        sales: 403,
      },
      {
        note: 'own customer, foreign location',
        params: (a, b) => ({ id: a.customerId, locId: b.locationId }),
        body: () => location,
        msp: 404,
        customer: 404,
      },
    ],
    'locations.removeStatic': [
      { params: (_, b) => ({ id: b.customerId, locId: b.locationId }), msp: 404, customer: 404, sales: 403 },
      {
        note: 'own customer, foreign location',
        params: (a, b) => ({ id: a.customerId, locId: b.locationId }),
        msp: 404,
        customer: 404,
      },
    ],
    'locations.listAddresses': [
      {
        note: 'own customer, foreign location',
        params: (a, b) => ({ id: a.customerId, locId: b.locationId }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
    ],
    'locations.addAddress': [
      {
        params: (_, b) => ({ id: b.customerId, locId: b.locationId }),
        body: () => ({ ip: '198.51.100.7' }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
      {
        note: 'own customer, foreign location',
        params: (a, b) => ({ id: a.customerId, locId: b.locationId }),
        body: () => ({ ip: '198.51.100.7' }),
        msp: 404,
        customer: 404,
      },
    ],
    'locations.removeAddress': [
      {
        note: 'own customer and location, foreign address',
        params: (a, b) => ({ id: a.customerId, locId: a.locationId, addrId: b.addressId }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
    ],
    'locations.create': [
      {
        params: (_, b) => ({ id: b.customerId, type: 'virtual' }),
        body: () => ({ name: 'Intruder' }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
      {
        note: "own customer, another tenant's policy: a field error, as for a missing policy",
        params: (a) => ({ id: a.customerId, type: 'roaming' }),
        body: (_, b) => ({ name: 'Intruder', policy_id: b.policyId }),
        msp: 400,
        customer: 400,
      },
    ],
    'locations.get': [
      {
        params: (_, b) => ({ id: b.customerId, type: 'virtual', locId: b.virtualLocationId }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
      {
        note: 'own customer, foreign location',
        params: (a, b) => ({ id: a.customerId, type: 'virtual', locId: b.virtualLocationId }),
        msp: 404,
        customer: 404,
      },
    ],
    'locations.update': [
      {
        params: (_, b) => ({ id: b.customerId, type: 'virtual', locId: b.virtualLocationId }),
        body: () => ({ name: 'Hijacked', regenerate_key: true }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
      {
        note: 'own customer, foreign location',
        params: (a, b) => ({ id: a.customerId, type: 'virtual', locId: b.virtualLocationId }),
        body: () => ({ name: 'Hijacked', regenerate_key: true }),
        msp: 404,
        customer: 404,
      },
    ],
    'locations.remove': [
      {
        params: (_, b) => ({ id: b.customerId, type: 'virtual', locId: b.virtualLocationId }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
      {
        note: 'own customer, foreign location',
        params: (a, b) => ({ id: a.customerId, type: 'virtual', locId: b.virtualLocationId }),
        msp: 404,
        customer: 404,
      },
    ],
    'locations.dependants': [
      {
        params: (_, b) => ({ id: b.customerId, type: 'staticip', locId: b.locationId }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
      {
        note: 'own customer, foreign location',
        params: (a, b) => ({ id: a.customerId, type: 'staticip', locId: b.locationId }),
        msp: 404,
        customer: 404,
      },
    ],
  },
  topics: ['locations'],
});
