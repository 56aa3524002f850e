/**
 * `cordon backup <file>` and `cordon restore <file>` (docs/operations.md "Backup and restore"): an
 * online, consistent copy of a running SQLite deployment with the secret files it cannot be restored
 * without, in one gzip'd tar archive, and its restore into an empty data directory.
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { MIGRATION_NAMES, openSqliteFile, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '@cordon/db';
import SQLite from 'better-sqlite3';
import * as tar from 'tar';
import { ConfigError, type ServeConfig } from '../config.ts';

/** The archive's format name and version, in its manifest. */
export const BACKUP_FORMAT = 'cordon-backup';
export const BACKUP_FORMAT_VERSION = 1;

/** `manifest.json` of a backup archive. */
export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  format_version: number;
  /** The release that wrote it. */
  cordon_version: string;
  /** ISO 8601, UTC. */
  created_at: string;
  database: 'sqlite';
  /** The migrations applied to the copied database, in order. */
  migrations: string[];
  /** Each file of the archive (paths relative to it) with its SHA-256 (hex) and size in bytes. */
  files: Record<string, { sha256: string; bytes: number }>;
  /** Secrets the deployment takes from the environment (CORDON_JWT_KEY, CORDON_CA_SECRET): not in the archive. */
  secrets_from_environment: string[];
}

type BackupConfig = Pick<
  ServeConfig,
  'dataDir' | 'databaseUrl' | 'jwtKeyFile' | 'jwtKey' | 'caSecretFile' | 'caSecret'
>;

const DATABASE_FILE = 'cordon.sqlite';
const JWT_ENTRY = 'secrets/jwt.key';
const CA_ENTRY = 'secrets/ca.key-secret';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function refusePostgres(config: BackupConfig, verb: string): void {
  if (config.databaseUrl) {
    throw new ConfigError(
      `cordon ${verb} works on the embedded SQLite database; with PostgreSQL use pg_dump / pg_restore and keep the secret files (docs/operations.md "Backup and restore")`,
    );
  }
}

/**
 * Writes a backup of the deployment `config` names to `file` (gzip'd tar, mode 0600): the SQLite
 * database copied through SQLite's online backup API in one step — a consistent snapshot taken while
 * the resolver and the API go on writing (WAL readers do not block writers) — checked with
 * `PRAGMA integrity_check`, the access-token key file and the CA secret file, and `manifest.json`
 * with each file's SHA-256. The archive holds the keys: keep it as secret as they are.
 * @param version the release writing it (the manifest's `cordon_version`)
 * @returns the manifest written
 * @throws ConfigError on PostgreSQL, when the database file does not exist, or `file` exists already
 */
export async function runBackup(
  config: BackupConfig,
  file: string,
  version: string,
  print: (line: string) => void,
): Promise<BackupManifest> {
  refusePostgres(config, 'backup');
  const source = join(config.dataDir, DATABASE_FILE);
  if (!existsSync(source)) throw new ConfigError(`no database at ${source}: nothing to back up`);
  if (existsSync(file)) throw new ConfigError(`${file} exists already: choose a new file (a backup never overwrites)`);
  const work = mkdtempSync(join(tmpdir(), 'cordon-backup-'));
  try {
    const copy = join(work, DATABASE_FILE);
    const db = openSqliteFile(source);
    try {
      // All remaining pages in one step: one read transaction, so the copy is one consistent state
      // (in steps, every commit of another connection would restart it).
      await db.backup(copy, { progress: ({ remainingPages }) => Math.max(remainingPages, 1) });
    } finally {
      db.close();
    }
    const migrations = checkCopy(copy);
    mkdirSync(join(work, 'secrets'), { mode: PRIVATE_DIR_MODE });
    const secretsFromEnvironment: string[] = [];
    const secret = (entry: string, path: string, variable: string, fromEnv: string | undefined) => {
      if (fromEnv !== undefined) secretsFromEnvironment.push(variable);
      else if (existsSync(path)) writeFileSync(join(work, entry), readFileSync(path), { mode: PRIVATE_FILE_MODE });
      else
        throw new ConfigError(`${path} is missing: the backup would not restore (its ${variable} is not set either)`);
    };
    secret(JWT_ENTRY, config.jwtKeyFile, 'CORDON_JWT_KEY', config.jwtKey);
    secret(CA_ENTRY, config.caSecretFile, 'CORDON_CA_SECRET', config.caSecret);
    const entries = [DATABASE_FILE, JWT_ENTRY, CA_ENTRY].filter((e) => existsSync(join(work, e)));
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      format_version: BACKUP_FORMAT_VERSION,
      cordon_version: version,
      created_at: new Date().toISOString(),
      database: 'sqlite',
      migrations,
      files: Object.fromEntries(
        entries.map((e) => {
          const bytes = readFileSync(join(work, e));
          return [e, { sha256: sha256(bytes), bytes: bytes.length }];
        }),
      ),
      secrets_from_environment: secretsFromEnvironment,
    };
    writeFileSync(join(work, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
    // Written beside the target and renamed: a failed backup leaves no partial archive under its name.
    const partial = join(dirname(file), `.${basename(file)}.partial`);
    await tar.create({ gzip: true, file: partial, cwd: work, portable: true }, ['manifest.json', ...entries]);
    chmodSync(partial, PRIVATE_FILE_MODE);
    renameSync(partial, file);
    print(
      `backup written: ${file} (${statSync(file).size} bytes): database ${manifest.files[DATABASE_FILE]?.bytes} bytes at migration ${migrations.at(-1)}; secrets: ${
        entries.filter((e) => e.startsWith('secrets/')).join(', ') || 'none'
      }${secretsFromEnvironment.length > 0 ? `; from the environment, not saved: ${secretsFromEnvironment.join(', ')}` : ''}`,
    );
    print('the archive holds the deployment keys: store it as you store them');
    return manifest;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Checks a copied database: `PRAGMA integrity_check` says ok, and its journal is a single file.
 * @returns the migrations it records, in order
 * @throws Error when the copy is damaged
 */
function checkCopy(path: string): string[] {
  const db = new SQLite(path);
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new Error(`the copied database fails its integrity check: ${integrity}`);
    db.pragma('journal_mode = DELETE');
    return (db.prepare('select name from kysely_migration order by name').all() as { name: string }[]).map(
      (r) => r.name,
    );
  } finally {
    db.close();
  }
}

/**
 * Restores the archive `file` into the empty data directory of `config`: checks the manifest, every
 * file's SHA-256, that this release knows every migration the database records, and the database's
 * integrity, then writes the database and the secret files (0600; the directory 0700). Nothing is
 * written unless every check passes; a secret file that exists already with other content is refused
 * rather than replaced. `cordon serve` then migrates the database forward if it is older.
 * @returns the archive's manifest
 * @throws ConfigError on PostgreSQL, when the data directory holds a database, or the archive is not
 *   a Cordon backup, is damaged, or comes from a newer release
 */
export async function runRestore(
  config: BackupConfig,
  file: string,
  print: (line: string) => void,
): Promise<BackupManifest> {
  refusePostgres(config, 'restore');
  const target = join(config.dataDir, DATABASE_FILE);
  for (const f of [target, `${target}-wal`]) {
    if (existsSync(f)) throw new ConfigError(`${f} exists: restore into an empty data directory (nothing was changed)`);
  }
  if (!existsSync(file)) throw new ConfigError(`no backup at ${file}`);
  const work = mkdtempSync(join(tmpdir(), 'cordon-restore-'));
  try {
    const expected = new Set(['manifest.json', DATABASE_FILE, 'secrets/', JWT_ENTRY, CA_ENTRY]);
    const unexpected: string[] = [];
    try {
      await tar.extract({
        file,
        cwd: work,
        strict: true,
        // Only the archive's own entries: no path outside it, no link, nothing else.
        filter: (path, entry) => {
          const ok =
            expected.has(path) && ('type' in entry ? entry.type === 'File' || entry.type === 'Directory' : true);
          if (!ok) unexpected.push(path);
          return ok;
        },
      });
    } catch (err) {
      throw new ConfigError(`${file} is not a readable backup archive: ${(err as Error).message}`);
    }
    if (unexpected.length > 0)
      throw new ConfigError(`${file} holds entries a Cordon backup does not: ${unexpected.join(', ')}`);
    const manifestPath = join(work, 'manifest.json');
    if (!existsSync(manifestPath)) throw new ConfigError(`${file} has no manifest.json: not a Cordon backup`);
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as BackupManifest;
    if (manifest.format !== BACKUP_FORMAT || manifest.format_version !== BACKUP_FORMAT_VERSION) {
      throw new ConfigError(`${file} is not a Cordon backup of format ${BACKUP_FORMAT_VERSION}`);
    }
    const present = new Set(readdirSync(work, { recursive: true }).map(String));
    for (const [entry, { sha256: want }] of Object.entries(manifest.files)) {
      if (!present.has(entry)) throw new ConfigError(`${file} lacks ${entry}, which its manifest lists`);
      if (sha256(readFileSync(join(work, entry))) !== want) {
        throw new ConfigError(`${entry} in ${file} does not match its checksum: the archive is damaged`);
      }
    }
    const unknown = manifest.migrations.filter((m) => !MIGRATION_NAMES.includes(m));
    if (unknown.length > 0) {
      throw new ConfigError(
        `the backup comes from a newer release (${manifest.cordon_version}; migrations ${unknown.join(', ')}): restore it with that release`,
      );
    }
    checkCopy(join(work, DATABASE_FILE));
    const secrets: Array<[string, string]> = [
      [JWT_ENTRY, config.jwtKeyFile],
      [CA_ENTRY, config.caSecretFile],
    ];
    for (const [entry, path] of secrets) {
      if (present.has(entry) && existsSync(path) && !readFileSync(path).equals(readFileSync(join(work, entry)))) {
        throw new ConfigError(
          `${path} exists with another key: move it away to restore this backup's (nothing was changed)`,
        );
      }
    }
    if (!existsSync(config.dataDir)) {
      mkdirSync(config.dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
      chmodSync(config.dataDir, PRIVATE_DIR_MODE);
    }
    for (const [entry, path] of secrets) {
      if (present.has(entry)) {
        mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE });
        writeFileSync(path, readFileSync(join(work, entry)), { mode: PRIVATE_FILE_MODE });
      }
    }
    // The database last, renamed into place: a restore that fails before leaves no database behind.
    const partial = `${target}.restoring`;
    writeFileSync(partial, readFileSync(join(work, DATABASE_FILE)), { mode: PRIVATE_FILE_MODE });
    renameSync(partial, target);
    print(
      `restored ${file} (written ${manifest.created_at} by ${manifest.cordon_version}, migration ${manifest.migrations.at(-1)}) into ${config.dataDir}${
        manifest.secrets_from_environment.length > 0
          ? `; set ${manifest.secrets_from_environment.join(' and ')} as the backed-up deployment did`
          : ''
      }`,
    );
    return manifest;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
