import { ErrorTexts, SILENT_2FA_TEXTS } from '@cordon/shared';
import type { ResponseOutcome } from '../../api/client.ts';

/** The console's reaction to an outcome (spec-notes §8 "Global handling of responses"). */
export type Reaction =
  | { kind: 'none' }
  /** Clear local storage and return to the root. */
  | { kind: 'logout' }
  /** An error toast that closes after 5000 ms (spec-notes §9). */
  | { kind: 'toast'; message: string }
  | { kind: 'navigate'; to: string }
  /** The persistent no-connection alert. */
  | { kind: 'connectionLost' }
  /** A successful response: closes the no-connection alert if it is open (spec-notes §4). */
  | { kind: 'connectionRestored' };

/** Paths that only redirect to their overview; a 404's parent must skip them or it would loop. */
const REDIRECTING_PATHS = new Set(['/system', '/customer', '/msp', '/sales']);

/** The parent of a console path: `/a/b/c` → `/a/b`; redirect-only area roots are skipped to `/`. */
export function parentPath(pathname: string): string {
  const segments = pathname.split('/').filter(Boolean);
  segments.pop();
  const parent = `/${segments.join('/')}`;
  return REDIRECTING_PATHS.has(parent) ? '/' : parent;
}

/** True when the server's text is one the second-factor flow handles itself (spec-notes §8: silent). */
export function isSilentText(text: string): boolean {
  return SILENT_2FA_TEXTS.some((t) => text.includes(t));
}

/**
 * Decides the global reaction to a response, exactly spec-notes §8:
 * 401 (not on the root path) → logout; 400/409/422/5xx → toast of the server's text unless it is a
 * second-factor text, or a 400 that names its fields (the form shows them inline, issue 11); 403 → 'Client error: Forbidden.'; 404 → the parent path; 405/408/429 → their
 * texts; network failure → persistent alert; success → the alert closes. `pathname` is the
 * console's current path.
 */
export function decideReaction(outcome: ResponseOutcome, pathname: string): Reaction {
  switch (outcome.type) {
    case 'success':
      return { kind: 'connectionRestored' };
    case 'network':
      return { kind: 'connectionLost' };
    case 'cancelled':
      return { kind: 'none' };
    case 'http':
      // A 400 naming its fields is shown under those fields by the form; a toast too would say it twice.
      if (outcome.status === 400 && outcome.fields) return { kind: 'none' };
      return decideHttpReaction(outcome.status, outcome.text, pathname);
  }
}

function decideHttpReaction(status: number, text: string, pathname: string): Reaction {
  if (status === 401 || text.includes('401')) {
    return pathname === '/' ? { kind: 'none' } : { kind: 'logout' };
  }
  if (status === 400 || status === 409 || status === 422 || status >= 500) {
    if (isSilentText(text)) return { kind: 'none' };
    const fallback = status >= 500 ? ErrorTexts.serverError : ErrorTexts.clientError;
    return { kind: 'toast', message: text || fallback };
  }
  switch (status) {
    case 403:
      return { kind: 'toast', message: ErrorTexts.forbidden };
    case 404: {
      const to = parentPath(pathname);
      return to === pathname ? { kind: 'none' } : { kind: 'navigate', to };
    }
    case 405:
      return { kind: 'toast', message: ErrorTexts.methodNotAllowed };
    case 408:
      return { kind: 'toast', message: ErrorTexts.timeout };
    case 429:
      return { kind: 'toast', message: ErrorTexts.tooManyRequests };
    default:
      return status >= 400 ? { kind: 'toast', message: ErrorTexts.clientError } : { kind: 'connectionRestored' };
  }
}
