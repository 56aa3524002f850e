import { ErrorTexts } from './messages.ts';

/**
 * The catalogue of stable API error codes (docs/contributing.md "Conventions" 11; docs/api.md). Every error the API
 * sends is one of these, with its HTTP status and default human text (spec-notes §8 texts where the
 * spec has one).
 */
export const ErrorCatalogue = {
  ERR_VALIDATION: { status: 400, message: 'The request is not valid.' },
  ERR_BAD_CREDENTIALS: { status: 401, message: ErrorTexts.badCredentials },
  ERR_UNAUTHENTICATED: { status: 401, message: '401 Unauthorized: a valid access token is required.' },
  ERR_FORBIDDEN: { status: 403, message: ErrorTexts.forbidden },
  ERR_NOT_FOUND: { status: 404, message: ErrorTexts.notFound },
  ERR_METHOD_NOT_ALLOWED: { status: 405, message: ErrorTexts.methodNotAllowed },
  ERR_TIMEOUT: { status: 408, message: ErrorTexts.timeout },
  ERR_CONFLICT: { status: 409, message: 'The resource conflicts with an existing one.' },
  /**
   * A delete of something others depend on, without saying where they go (docs/api.md "Deletes of
   * things in use"); the body's `dependants` gives their counts and first names.
   */
  ERR_IN_USE: { status: 409, message: 'This item is in use: say where what depends on it goes.' },
  ERR_UNPROCESSABLE: { status: 422, message: 'The request could not be processed.' },
  ERR_2FA_ENABLED: { status: 422, message: '2FA is enabled' },
  ERR_2FA_CODE_REQUIRED: { status: 422, message: 'Code required' },
  ERR_2FA_INVALID_CODE: { status: 422, message: 'Invalid code' },
  ERR_2FA_INCORRECT_RECOVERY: { status: 422, message: 'Incorrect code entered' },
  ERR_2FA_ENFORCED: { status: 422, message: '2FA is enforced' },
  /** A domain list would pass the operator's size limit (docs/operations.md "List sizes"). */
  ERR_LIST_FULL: { status: 422, message: ErrorTexts.listFull },
  /**
   * A `/batch` item whose answer would take the batch's answer past `Constants.batchMaxResponseBytes`,
   * and the items after it, which do not run (docs/api.md "Batch").
   */
  ERR_BATCH_TOO_LARGE: { status: 413, message: ErrorTexts.batchAnswerTooLarge },
  ERR_RATE_LIMITED: { status: 429, message: ErrorTexts.tooManyRequests },
  ERR_HEADERS_TOO_LARGE: { status: 431, message: 'Client error: Request header fields too large.' },
  ERR_INTERNAL: { status: 500, message: ErrorTexts.serverError },
  /** The database cannot be reached (docs/api.md "Conventions"; docs/operations.md "When the database goes away"). */
  ERR_UNAVAILABLE: {
    status: 503,
    message: 'Service unavailable: the database cannot be reached. Please try again shortly.',
  },
  /**
   * A heavy read (the history search) ran out of its time bound and was stopped (docs/api.md
   * "History"; docs/operations.md "Heavy reads"); the same request will take as long again.
   */
  ERR_QUERY_TIMEOUT: {
    status: 503,
    message:
      'The search took too long and was stopped. Narrow it: a shorter period, a more specific search text, or sort by time.',
  },
} as const;

export type ErrorCode = keyof typeof ErrorCatalogue;

/**
 * The API's error envelope (docs/api.md): `error` is human text (shown in toasts), `code` is
 * stable, `fields` maps a field name to its spec-notes §5 message.
 */
export interface ApiErrorBody {
  error: string;
  code: ErrorCode;
  fields?: Record<string, string>;
  /** ERR_IN_USE only: what depends on the item, by kind (docs/api.md "Deletes of things in use"). */
  dependants?: Record<string, { count: number; names: string[] }>;
}

/**
 * An error the API turns into its envelope. Throw it from services and repositories.
 * @param code a catalogue code; its status is the HTTP status sent
 * @param message human text; defaults to the catalogue's
 * @param fields per-field messages for validation errors
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly fields: Record<string, string> | undefined;

  constructor(code: ErrorCode, message?: string, fields?: Record<string, string>) {
    super(message ?? ErrorCatalogue[code].message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ErrorCatalogue[code].status;
    this.fields = fields;
  }

  /** The wire envelope of this error. */
  toBody(): ApiErrorBody {
    return this.fields
      ? { error: this.message, code: this.code, fields: this.fields }
      : { error: this.message, code: this.code };
  }
}

/**
 * 409 ERR_IN_USE (docs/api.md "Deletes of things in use"): a delete refused because others depend
 * on the item and the request did not say where they go. The body adds `dependants`, by kind, each
 * `{ count, names }` (the first names by name).
 */
export class InUseError extends ApiError {
  readonly dependants: Record<string, { count: number; names: string[] }>;

  constructor(message: string, dependants: Record<string, { count: number; names: string[] }>) {
    super('ERR_IN_USE', message);
    this.name = 'InUseError';
    this.dependants = dependants;
  }

  override toBody(): ApiErrorBody {
    return { ...super.toBody(), dependants: this.dependants };
  }
}
