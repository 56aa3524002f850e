import type { MailSettings } from '@cordon/shared';

/**
 * What the password field says about the stored password, and whether one must be typed:
 * - the owner's own settings with a password: it is kept when the field stays empty (`kept`);
 * - an MSP shown the system's settings (`inherited`) with a password: saving creates the MSP's own
 *   row and the system's password is not copied into it (core's mail repository keeps only the
 *   owner's own password), so with a user name a password is required (`notCopied`);
 * - otherwise nothing to say (`none`).
 */
export function storedPasswordState(
  settings: Pick<MailSettings, 'is_set' | 'inherited' | 'has_password'>,
): 'kept' | 'notCopied' | 'none' {
  if (!settings.has_password) return 'none';
  if (settings.is_set) return 'kept';
  return settings.inherited ? 'notCopied' : 'none';
}

/**
 * Whether the settings form must refuse an empty password: saving would store a user name without
 * the password the settings shown were using (see {@link storedPasswordState}).
 */
export function missingPassword(
  settings: Pick<MailSettings, 'is_set' | 'inherited' | 'has_password'>,
  values: { username: string; password: string },
): boolean {
  return storedPasswordState(settings) === 'notCopied' && values.username.trim() !== '' && values.password === '';
}
