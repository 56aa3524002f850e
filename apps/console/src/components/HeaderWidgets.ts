/**
 * The area header's widgets in one module, so an area page fetches one chunk for them beside its
 * own (bench/README.md "Console first load": each lazy module was a request of its own, and on a
 * slow link the requests, not the bytes, held the main content back). None is in the login page's
 * first load: they read the tenant and branding endpoints.
 */
export { BrandingSync } from './BrandingSync.tsx';
export { ColorSchemePicker } from './ColorSchemePicker.tsx';
export { LanguagePicker } from './LanguagePicker.tsx';
export { CustomerName, TenantSwitcher, TenantZoneSync } from './TenantSwitcher.tsx';
