import { createSecretBox } from '@cordon/pki/secrets';
import { type MspStreamsOptions, parseNdjsonTarget, parseSyslogTarget, type StreamTarget } from './targets.ts';

/**
 * An enabled MSP destination as the writer thread reads it from `msp_log_streams` (migration 0040;
 * docs/operations.md "Query-log streaming" "Per-MSP destinations").
 */
export interface MspStreamRow {
  readonly id: number;
  readonly msp_id: number;
  /** `syslog` or `ndjson`. */
  readonly format: string;
  readonly address: string;
  readonly ca_pem: string | null;
  /** Sealed with the deployment SecretBox (`sealed:…`), or plain when the API had no secret box. */
  readonly authorization: string | null;
  /** ISO; a destination whose stamp changed is reopened. */
  readonly updated_at: string;
}

/** A destination ready for a sink: its MSP, its change stamp and its target. */
export interface MspDestination {
  readonly id: number;
  readonly mspId: number;
  readonly stamp: string;
  readonly target: StreamTarget;
}

const SEALED_PREFIX = 'sealed:';

/**
 * The target of an MSP's destination row: the address parsed as the operator's are (querylog/streams/targets.ts),
 * its `Authorization` value opened, the outbound guard's allowance attached (every connection goes
 * through the guard: docs/security.md "Outbound requests").
 * @throws Error naming what is wrong (an unknown format, a bad address, a sealed value it cannot open)
 */
export function mspDestination(row: MspStreamRow, opts: MspStreamsOptions): MspDestination {
  const tenant = { outbound: { allow: opts.outboundAllow ?? [] }, owner: `msp ${row.msp_id} stream ${row.id}` };
  const ca = row.ca_pem ?? undefined;
  let target: StreamTarget;
  if (row.format === 'syslog') {
    target = { ...(parseSyslogTarget(row.address, ca) as Extract<StreamTarget, { kind: 'syslog' }>), tenant };
  } else if (row.format === 'ndjson') {
    let authorization = row.authorization ?? undefined;
    if (authorization?.startsWith(SEALED_PREFIX)) {
      if (opts.sealKey === undefined) throw new Error('its Authorization value is sealed and no secret was given');
      authorization = createSecretBox(Buffer.from(opts.sealKey, 'utf8')).open(authorization);
    }
    target = {
      ...(parseNdjsonTarget(row.address, authorization, ca) as Extract<StreamTarget, { kind: 'ndjson' }>),
      tenant,
    };
  } else {
    throw new Error(`unknown format "${row.format}"`);
  }
  return { id: row.id, mspId: row.msp_id, stamp: row.updated_at, target };
}
