import { createHash } from 'node:crypto';
import { ApiError, Constants, ErrorTexts, Messages } from '@cordon/shared';
import { imageSize } from 'image-size';

/** The image types a logo may have: raster formats a browser shows with no script (SVG can carry script). */
export const LOGO_TYPES = { png: 'image/png', jpg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' } as const;

/** The largest logo, pixels per side (docs/decisions.md "Logos"): a header or block-page logo needs far less. */
export const LOGO_MAX_SIDE = 1024;

/** A logo that passed {@link validateLogo}. */
export interface ValidatedLogo {
  readonly bytes: Buffer;
  /** The sniffed media type, never the one the client claimed. */
  readonly type: (typeof LOGO_TYPES)[keyof typeof LOGO_TYPES];
  readonly width: number;
  readonly height: number;
  /** Hex SHA-256 of the bytes: the logo's cache key in URLs. */
  readonly sha256: string;
}

/**
 * Checks an uploaded logo (spec-notes §5 messages; docs/security.md "Uploads"): at most 1 MB
 * (`Constants.maxUploadBytes`), a PNG, JPEG, GIF or WebP by its content (the file name and the
 * claimed type are ignored), at most {@link LOGO_MAX_SIDE} pixels on each side.
 * @param field the form field the errors name (`logo`)
 * @throws ApiError ERR_VALIDATION: "File size exceeds maximum of 1mb." when too large, "Failed
 *   Uploaded file." when empty or not one of those image types, "The image dimensions are too big."
 */
export function validateLogo(bytes: Buffer, field = 'logo'): ValidatedLogo {
  const refuse = (message: string) => new ApiError('ERR_VALIDATION', message, { [field]: message });
  if (bytes.length > Constants.maxUploadBytes) throw refuse(Messages.fileTooLarge);
  if (bytes.length === 0) throw refuse(ErrorTexts.uploadFailed);
  let size: { width?: number; height?: number; type?: string };
  try {
    size = imageSize(bytes);
  } catch {
    throw refuse(ErrorTexts.uploadFailed);
  }
  const type = LOGO_TYPES[size.type as keyof typeof LOGO_TYPES];
  if (type === undefined || !size.width || !size.height) throw refuse(ErrorTexts.uploadFailed);
  if (size.width > LOGO_MAX_SIDE || size.height > LOGO_MAX_SIDE) throw refuse(Messages.imageTooBig);
  return {
    bytes,
    type,
    width: size.width,
    height: size.height,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
}

/** A `data:` URL of `bytes` (the console shows a stored logo with it; at most ~1.4 MB of text). */
export function logoDataUrl(type: string, bytes: Uint8Array): string {
  return `data:${type};base64,${Buffer.from(bytes).toString('base64')}`;
}
