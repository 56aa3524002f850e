/** The current time as the schema's ISO-8601 UTC text. */
export function nowIso(now: number = Date.now()): string {
  return new Date(now).toISOString();
}

/** SQLite and PostgreSQL booleans are stored as 0/1 integers; these convert at the repository edge. */
export const toFlag = (value: boolean): number => (value ? 1 : 0);
export const fromFlag = (value: number | boolean | null | undefined): boolean => value === 1 || value === true;
