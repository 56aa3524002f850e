import { isIP } from 'node:net';
import type { Database } from '@cordon/db';
import { nowIso } from '@cordon/db';
import {
  ApiError,
  type LogStream,
  type LogStreamCreate,
  type LogStreamFormat,
  type LogStreamOwnerQuery,
  type LogStreamUpdate,
  logStreamAddressProblem,
  ndjsonAddressMessage,
  Role,
} from '@cordon/shared';
import { type OutboundOptions, outboundRefusal } from '@cordon/shared/outbound';
import type { Kysely, Selectable } from 'kysely';
import { type Caller, type CoreDeps, openStored, sealStored } from '../context.ts';
import { mutate } from '../mutation/index.ts';
import { mspVisible, scopeOf } from '../tenancy/index.ts';

type Row = Selectable<Database['msp_log_streams']>;

/**
 * The MSP id the caller's scope limits destinations to in SQL: its own for an MSP admin, none
 * (every MSP) for the system admin; null for anyone else (the descriptors refuse them first).
 */
function scopeMsp(caller: Caller): number | 'all' | null {
  const scope = scopeOf(caller);
  if (scope.kind === 'all') return 'all';
  if (scope.kind === 'msp' && caller.role === Role.Msp) return scope.mspId;
  return null;
}

/**
 * The MSP a list or a creation means: `msp_id`, else the caller's own (an MSP admin's); it must be
 * visible to the caller (an MSP admin: only its own).
 * @throws ApiError ERR_NOT_FOUND for a missing or foreign MSP, or a system admin naming none
 */
async function ownerOf(db: Kysely<Database>, caller: Caller, query: LogStreamOwnerQuery): Promise<number> {
  if (caller.role !== Role.System && caller.role !== Role.Msp) throw new ApiError('ERR_FORBIDDEN');
  const mspId = query.msp_id ?? (caller.role === Role.Msp ? caller.mspId : null);
  if (mspId === null || mspId === undefined) throw new ApiError('ERR_NOT_FOUND');
  if (!(await mspVisible(db, scopeOf(caller), caller.role, mspId))) throw new ApiError('ERR_NOT_FOUND');
  return mspId;
}

/** One destination of the caller's scope by id (scoped by `msp_id` in SQL), or undefined. */
async function findStream(db: Kysely<Database>, caller: Caller, id: number): Promise<Row | undefined> {
  const msp = scopeMsp(caller);
  if (msp === null) return undefined;
  let q = db.selectFrom('msp_log_streams').selectAll().where('id', '=', id);
  if (msp !== 'all') q = q.where('msp_id', '=', msp);
  return q.executeTakeFirst();
}

/**
 * What the API shows of an `Authorization` value: its scheme (a first word followed by a space) and,
 * for a credential of 16 characters or more, its last 4 (`Splunk …f00d`); `…` alone otherwise.
 */
export function authorizationHint(value: string): string {
  const space = value.indexOf(' ');
  const scheme = space > 0 && space <= 20 ? `${value.slice(0, space)} ` : '';
  const credential = value.slice(scheme.length);
  return credential.length >= 16 ? `${scheme}…${credential.slice(-4)}` : `${scheme}…`;
}

function toWire(deps: CoreDeps, row: Row): LogStream {
  let hint: string | null = null;
  if (row.authorization !== null && row.authorization !== '') {
    try {
      hint = authorizationHint(openStored(deps, row.authorization));
    } catch {
      // Sealed with another deployment secret: still set, its characters unknown here.
      hint = '…';
    }
  }
  return {
    id: row.id,
    msp_id: row.msp_id,
    name: row.name,
    format: row.format as LogStreamFormat,
    address: row.address,
    ca_pem: row.ca_pem,
    authorization_hint: hint,
    enabled: row.enabled === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
    last_delivered_at: row.last_delivered_at,
    last_error: row.last_error,
    last_error_at: row.last_error_at,
  };
}

/** An audit view of a destination: the `Authorization` value never, only whether one is set. */
function auditView(row: Row | undefined) {
  if (!row) return null;
  const { authorization, ...rest } = row;
  return { ...rest, authorization_set: authorization !== null && authorization !== '' };
}

/**
 * Checks an address against its format (the form: {@link logStreamAddressProblem}), then what can be
 * known without resolving: `http:` only to a loopback host (as webhooks: docs/security.md
 * "Webhooks"), and no IP literal the outbound guard refuses (private, loopback, link-local…,
 * unless the operator allows it: `--outbound-allow`). A name is resolved and checked again at each
 * connection (docs/security.md "Outbound requests").
 * @throws ApiError ERR_VALIDATION (field `address`)
 */
function checkAddress(format: LogStreamFormat, address: string, outbound: Pick<OutboundOptions, 'allow'>): void {
  const fail = (message: string) => {
    throw new ApiError('ERR_VALIDATION', message, { address: message });
  };
  const problem = logStreamAddressProblem(format, address);
  if (problem !== null) fail(problem);
  let host: string;
  if (format === 'ndjson') {
    const url = new URL(address);
    host = url.hostname.replace(/^\[|\]$/g, '');
    const loopback = host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
    if (url.protocol === 'http:' && !loopback) fail(ndjsonAddressMessage);
  } else {
    const rest = address.replace(/^(tcp|tls):\/\//, '');
    host = rest.startsWith('[') ? rest.slice(1, rest.indexOf(']')) : rest.slice(0, rest.lastIndexOf(':'));
  }
  if (host === 'localhost') host = '127.0.0.1';
  if (isIP(host) !== 0 && outboundRefusal(host, outbound) !== null)
    fail('This address is not allowed: private, loopback and link-local addresses are refused.');
}

/** Options of the services. */
export interface LogStreamOptions {
  /** The outbound guard's allowance for an IP literal; default the process-wide one (`--outbound-allow`). */
  readonly outbound?: Pick<OutboundOptions, 'allow'>;
}

/**
 * `GET /log-streams?msp_id=`: the MSP's destinations, oldest first.
 * @throws ApiError as {@link ownerOf}
 */
export async function listLogStreams(
  deps: CoreDeps,
  caller: Caller,
  query: LogStreamOwnerQuery,
): Promise<{ data: LogStream[]; total: number }> {
  const db = deps.handle.db;
  const mspId = await ownerOf(db, caller, query);
  const rows = await db.selectFrom('msp_log_streams').selectAll().where('msp_id', '=', mspId).orderBy('id').execute();
  return { data: rows.map((r) => toWire(deps, r)), total: rows.length };
}

/**
 * `GET /log-streams/{id}`.
 * @throws ApiError ERR_NOT_FOUND when missing or another MSP's
 */
export async function getLogStream(deps: CoreDeps, caller: Caller, id: number): Promise<LogStream> {
  const row = await findStream(deps.handle.db, caller, id);
  if (!row) throw new ApiError('ERR_NOT_FOUND');
  return toWire(deps, row);
}

/**
 * `POST /log-streams?msp_id=`: adds a destination; its `Authorization` value is sealed at rest. The
 * resolvers' writer threads pick it up within their re-read period. Audit `log_stream.create`.
 * @throws ApiError as {@link ownerOf}; ERR_VALIDATION as {@link checkAddress}
 */
export async function createLogStream(
  deps: CoreDeps,
  caller: Caller,
  query: LogStreamOwnerQuery,
  body: LogStreamCreate,
  opts: LogStreamOptions = {},
): Promise<LogStream> {
  checkAddress(body.format, body.address, opts.outbound ?? {});
  const row = await mutate(
    deps,
    caller,
    { topics: [], audit: { action: 'log_stream.create', entity: 'log_stream' } },
    async (trx, note) => {
      const mspId = await ownerOf(trx, caller, query);
      const at = nowIso(deps.now());
      const created = await trx
        .insertInto('msp_log_streams')
        .values({
          msp_id: mspId,
          name: body.name,
          format: body.format,
          address: body.address,
          ca_pem: body.ca_pem,
          authorization: body.authorization === null ? null : sealStored(deps, body.authorization),
          enabled: body.enabled ? 1 : 0,
          created_at: at,
          updated_at: at,
          last_delivered_at: null,
          last_error: null,
          last_error_at: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      Object.assign(note, { entityId: created.id, mspId, after: auditView(created) });
      return created;
    },
  );
  return toWire(deps, row);
}

/**
 * `PATCH /log-streams/{id}`: changes any field; the address is checked against the resulting
 * format. A changed destination starts afresh (its last error cleared). Audit `log_stream.update`.
 * @throws ApiError ERR_NOT_FOUND when missing or another MSP's; ERR_VALIDATION as {@link checkAddress}
 */
export async function updateLogStream(
  deps: CoreDeps,
  caller: Caller,
  id: number,
  body: LogStreamUpdate,
  opts: LogStreamOptions = {},
): Promise<LogStream> {
  return mutate(
    deps,
    caller,
    { topics: [], audit: { action: 'log_stream.update', entity: 'log_stream' } },
    async (trx, note) => {
      const before = await findStream(trx, caller, id);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      const format = body.format ?? (before.format as LogStreamFormat);
      const address = body.address ?? before.address;
      if (body.format !== undefined || body.address !== undefined) {
        checkAddress(format, address, opts.outbound ?? {});
      }
      const authorization =
        body.authorization === undefined
          ? before.authorization
          : body.authorization === null
            ? null
            : body.authorization;
      if (format === 'syslog' && authorization !== null && body.authorization !== undefined) {
        const message = 'Only NDJSON destinations send a header.';
        throw new ApiError('ERR_VALIDATION', message, { authorization: message });
      }
      await trx
        .updateTable('msp_log_streams')
        .set({
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.format !== undefined ? { format: body.format } : {}),
          ...(body.address !== undefined ? { address: body.address } : {}),
          ...(body.ca_pem !== undefined ? { ca_pem: body.ca_pem } : {}),
          ...(body.authorization !== undefined
            ? { authorization: body.authorization === null ? null : sealStored(deps, body.authorization) }
            : {}),
          // A syslog destination sends no header: one left from an NDJSON format goes.
          ...(format === 'syslog' ? { authorization: null } : {}),
          ...(body.enabled !== undefined ? { enabled: body.enabled ? 1 : 0 } : {}),
          last_error: null,
          last_error_at: null,
          updated_at: nowIso(deps.now()),
        })
        .where('msp_id', '=', before.msp_id)
        .where('id', '=', id)
        .execute();
      const after = (await findStream(trx, caller, id)) as Row;
      Object.assign(note, { entityId: id, mspId: after.msp_id, before: auditView(before), after: auditView(after) });
      return toWire(deps, after);
    },
  );
}

/**
 * `DELETE /log-streams/{id}`: the resolvers stop streaming to it within their re-read period.
 * Audit `log_stream.delete`.
 * @throws ApiError ERR_NOT_FOUND when missing or another MSP's
 */
export async function deleteLogStream(deps: CoreDeps, caller: Caller, id: number): Promise<{ deleted: true }> {
  await mutate(
    deps,
    caller,
    { topics: [], audit: { action: 'log_stream.delete', entity: 'log_stream' } },
    async (trx, note) => {
      const before = await findStream(trx, caller, id);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      await trx.deleteFrom('msp_log_streams').where('msp_id', '=', before.msp_id).where('id', '=', id).execute();
      Object.assign(note, { entityId: id, mspId: before.msp_id, before: auditView(before) });
    },
  );
  return { deleted: true };
}
