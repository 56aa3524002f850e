import { Messages } from '@cordon/shared';
import { describe, expect, it } from 'vitest';
import { INHERIT, type LocationFormValues, prepareLocation, validateLocation } from './LocationCreateForm.tsx';

const values = (over: Partial<LocationFormValues> = {}): LocationFormValues => ({
  name: 'Site',
  policy: INHERIT,
  addresses: [{ key: 'k', ip: '192.0.2.0/24' }],
  hostname: '',
  ip: '',
  ...over,
});

describe('the location form (spec-notes §3 "Location", §5 messages)', () => {
  it('sends each type only the fields it takes', () => {
    expect(prepareLocation('staticip', values())).toEqual({
      name: 'Site',
      policy_id: null,
      addresses: ['192.0.2.0/24'],
    });
    expect(prepareLocation('dynamicdns', values({ hostname: 'a.example', policy: '7' }))).toEqual({
      name: 'Site',
      policy_id: 7,
      hostname: 'a.example',
    });
    expect(prepareLocation('dynamicip', values({ ip: '' }))).toEqual({ name: 'Site', policy_id: null });
    expect(prepareLocation('dynamicip', values({ ip: '203.0.113.1' }))).toMatchObject({ ip: '203.0.113.1' });
    expect(prepareLocation('virtual', values({ hostname: 'ignored', ip: '1.2.3.4' }))).toEqual({
      name: 'Site',
      policy_id: null,
    });
  });

  it("validates with the shared schemas' messages", () => {
    expect(validateLocation('dynamicdns', values(), Messages.required)).toMatchObject({ hostname: Messages.required });
    expect(validateLocation('dynamicdns', values({ hostname: 'http://x.example/' }), Messages.required)).toMatchObject({
      hostname: Messages.domainOnly,
    });
    expect(validateLocation('dynamicip', values({ ip: '10.0.0.0/8' }), Messages.required)).toMatchObject({
      ip: Messages.invalidIp,
    });
    expect(
      validateLocation('staticip', values({ addresses: [{ key: 'k', ip: 'nope' }] }), Messages.required),
    ).toMatchObject({ 'addresses.0.ip': 'IP must be valid IP or CIDR.' });
    expect(validateLocation('roaming', values(), Messages.required)).toEqual({});
  });
});
