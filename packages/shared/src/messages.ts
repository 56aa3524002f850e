/**
 * User-facing texts of the specification, verbatim: validation messages (spec-notes §5) and the error
 * catalogue (spec-notes §8). The API's field errors and the console's forms use these same strings.
 */
export const Messages = {
  required: 'This is a required field.',
  positiveInteger: 'Must be a positive integer.',
  invalidIp: 'Must be valid IP address.',
  invalidEmail: 'Must be valid email address.',
  min5: 'Must contain at least 5 characters.',
  max200: 'Must contain at most 200 characters.',
  invalidJson: 'Must contain valid JSON.',
  passwordsMustMatch: 'Passwords must match.',
  passwordRule: 'Password must contain a letter and a number or symbol.',
  keyChars: 'Key can only contain letters, numbers, spaces, dots and dashes.',
  invalidUrl: 'Please enter a valid URL.',
  domainOnly: 'Please specify domain or partial domain only, URLs are not permitted.',
  invalidMailServer: 'Please specify valid hostname or IP address for Email server.',
  notificationEmailRequired: 'The email address is required with the selected category notifications.',
  fileTooLarge: 'File size exceeds maximum of 1mb.',
  imageTooBig: 'The image dimensions are too big.',
  lastItem: "You can't delete the last item in this table. A device exception in use must keep at least one rule.",
  userNotFound: 'User not found.',
} as const;

/**
 * Cordon's own texts (not the spec's) that several modules answer with, in one place so the API's
 * errors, the shared schemas, the console's forms and the tests say exactly the same thing. A text
 * used once stays where it is used.
 */
export const Texts = {
  /** A category id that is not in the catalogue (docs/architecture.md "Categories"). */
  unknownCategory: 'Unknown category.',
  /** A 409 on an admin e-mail, told only to a system admin (docs/security.md: no cross-tenant data in 409 answers). */
  emailInUse: 'This email address is already in use.',
  /** The same 409 for every other role: it does not confirm that another tenant's admin exists. */
  emailUnusable: 'This email address cannot be used.',
  /** A policy id that is not the customer's, on a device, location, group or internal user. */
  policyOfThisCustomer: 'Please select a policy of this customer.',
  /** A cloud key whose validity window ends before it starts. */
  validToAfterFrom: 'Valid to must be after valid from.',
  /** An address that must be https:// (feeds, webhooks, streams). */
  httpsUrl: 'Please enter a valid URL starting with https://.',
  /** An invitation or password-reset link that is unknown, used or expired. */
  linkInvalid: 'This link is not valid or has expired.',
} as const;

/** `{field} must be at least {length} characters long.` (spec-notes §5) */
export const minLengthMessage = (field: string, length: number): string =>
  `${field} must be at least ${length} characters long.`;
/** `{field} must be at most {length} characters long.` (spec-notes §5) */
export const maxLengthMessage = (field: string, length: number): string =>
  `${field} must be at most ${length} characters long.`;
/** `{field} must be valid IP or CIDR.` (spec-notes §5) */
export const ipOrCidrMessage = (field: string): string => `${field} must be valid IP or CIDR.`;
/** `{field} required unless {other_field} is provided.` (spec-notes §5) */
export const requiredUnlessMessage = (field: string, other: string): string =>
  `${field} required unless ${other} is provided.`;

/** Texts of the error catalogue (spec-notes §8). */
export const ErrorTexts = {
  clientError: 'Client error.',
  forbidden: 'Client error: Forbidden.',
  notFound: 'Client error: Resource not found.',
  methodNotAllowed: 'Client error: Method not allowed.',
  timeout: 'Client error: Request timed out.',
  tooManyRequests: 'Client error: Too many requests.',
  connectionLost: 'Connection lost. Please check your network and try again.',
  serverError: 'Server error. Please try again later.',
  somethingWentWrong: 'Something went wrong.',
  passwordResetFailed: 'Something went wrong requesting password reset. Please try again.',
  badCredentials: 'The email and password you entered did not match our records. Please try again.',
  badCode: 'The code you entered is not valid. Please try again.',
  uploadFailed: 'Failed Uploaded file.',
  cloudKeyAdded: 'Cloud Key added',
  listFull: 'This list is full.',
  batchAnswerTooLarge: 'Client error: The batch answer is too large. Send fewer sub-requests at a time.',
} as const;

/**
 * `This list is full: it may hold at most {max} entries.` — the operator's list-size limit
 * (docs/operations.md "List sizes"); the console shows its own translation by the code `ERR_LIST_FULL`.
 */
export const listFullMessage = (max: number): string =>
  `This list is full: it may hold at most ${max.toLocaleString('en-US')} entries.`;

/** Second-factor texts that the console handles silently (spec-notes §8; docs/api.md "Auth"). */
export const SILENT_2FA_TEXTS = [
  '2FA is enabled',
  'Incorrect code entered',
  'Code required',
  'Invalid code',
  '2FA is enforced',
] as const;
