import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect-kind.ts';

/**
 * The deployment's root CA (docs/architecture.md "Block page"; docs/decisions.md "Root CA"): at most one row, `id` 1,
 * created on the first start by `@cordon/pki`'s `ensureRootCa`.
 *
 * - `certificate_pem`: the self-signed root certificate (public; `GET /certificates/machine/download`).
 * - `key_sealed`: its PKCS #8 private key sealed with AES-256-GCM under a key derived from the
 *   deployment's CA secret, which is kept outside the database (`<data-dir>/ca.key-secret` or
 *   `CORDON_CA_SECRET`): a copy of the database alone cannot mint certificates.
 *
 * The fixed primary key makes two processes starting at once agree: the second insert fails and
 * that process reads the first one's row.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('root_ca')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('certificate_pem', 'text', (c) => c.notNull())
    .addColumn('key_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}
