/** Uploaded images: the logo checks shared by the block page and the interface branding (spec-notes §5, §7 "UI and tools"). */

export { LOGO_MAX_SIDE, LOGO_TYPES, logoDataUrl, type ValidatedLogo, validateLogo } from './logo.ts';
