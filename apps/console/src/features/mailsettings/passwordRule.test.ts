import { describe, expect, it } from 'vitest';
import { missingPassword, storedPasswordState } from './passwordRule.ts';

describe('the stored SMTP password on the settings form', () => {
  it('is kept when the owner has its own settings with a password', () => {
    const own = { is_set: true, inherited: false, has_password: true };
    expect(storedPasswordState(own)).toBe('kept');
    expect(missingPassword(own, { username: 'mailer', password: '' })).toBe(false);
  });

  it("is not copied from the system's settings shown to an MSP: with a user name one must be typed", () => {
    const inherited = { is_set: false, inherited: true, has_password: true };
    expect(storedPasswordState(inherited)).toBe('notCopied');
    expect(missingPassword(inherited, { username: 'mailer', password: '' })).toBe(true);
    expect(missingPassword(inherited, { username: 'mailer', password: 's3cret' })).toBe(false);
    expect(missingPassword(inherited, { username: ' ', password: '' })).toBe(false);
  });

  it('says nothing when no password is stored', () => {
    expect(storedPasswordState({ is_set: false, inherited: true, has_password: false })).toBe('none');
    expect(storedPasswordState({ is_set: false, inherited: false, has_password: false })).toBe('none');
    expect(
      missingPassword({ is_set: true, inherited: false, has_password: false }, { username: 'u', password: '' }),
    ).toBe(false);
  });
});
