import { cloudKeyCreateSchema, Messages } from '@cordon/shared';
import { describe, expect, it } from 'vitest';
import { isoToLocal, localToIso, toBody, toValues } from './CloudKeyForm.tsx';

describe('cloud-key form mapping', () => {
  it('sends minutes as seconds, blanks as null, and local times as UTC', () => {
    const body = toBody({
      key: 'Library pass',
      description: '',
      max_uses: '',
      valid_from: '',
      valid_to: isoToLocal('2030-05-01T10:30:00.000Z'),
      expires_after_minutes: 15,
      active: true,
    });
    expect(body).toEqual({
      key: 'Library pass',
      description: '',
      max_uses: null,
      valid_from: null,
      valid_to: '2030-05-01T10:30:00.000Z',
      expires_after: 900,
      active: true,
    });
    expect(cloudKeyCreateSchema.safeParse(body).success).toBe(true);
  });

  it('reads a key back into the form and refuses a bad key with the spec message', () => {
    const values = toValues({
      id: 1,
      key: 'k-1.0 ok',
      description: 'd',
      max_uses: 3,
      times_used: 1,
      valid_from: null,
      valid_to: null,
      expires_after: 3600,
      active: false,
      created_at: '',
      updated_at: '',
    });
    expect(values).toMatchObject({ max_uses: 3, expires_after_minutes: 60, active: false, valid_from: '' });
    expect(localToIso('')).toBeNull();
    const bad = cloudKeyCreateSchema.safeParse(toBody({ ...values, key: 'no_underscore' }));
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toBe(Messages.keyChars);
  });
});
