// The row shape lives beside the schema in @cordon/db (one home for the writers and the API's tests).
export type { QueryLogRow } from '@cordon/db';
