/** The one mutation path: transaction, audit row and change topics (docs/architecture.md). */
export { type AuditNote, type MutationSpec, type MutationWork, mutate } from './mutate.ts';
export { isUniqueViolation } from './unique-violation.ts';
