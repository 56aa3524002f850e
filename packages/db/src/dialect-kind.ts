/** The two supported SQL dialects (docs/decisions.md). */
export type Dialect = 'sqlite' | 'postgres';

/** The column type of an auto-increment integer primary key on `dialect`. */
export function idColumnType(dialect: Dialect): 'integer' | 'serial' {
  return dialect === 'postgres' ? 'serial' : 'integer';
}
