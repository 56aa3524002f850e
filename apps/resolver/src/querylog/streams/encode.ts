import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import type { QueryLogRow } from '../row.ts';

/**
 * Encodings of a query-log row for the log streams (docs/operations.md "Query-log streaming"):
 * the JSON record (NDJSON lines and dnstap's `extra`), a dnstap protobuf message in a Frame Streams
 * data frame, and an RFC 5424 syslog message framed by octet counting (RFC 6587 §3.4.1). All run on
 * the query-log writer thread, never on the resolving thread.
 */

/** A row with the MSP of its customer (looked up by the writer thread; null when unknown). */
export type StreamRow = QueryLogRow & { readonly msp_id: number | null };

/** The JSON record of a row: every column of the query log plus `msp_id`, categories as numbers. */
export interface StreamRecord {
  time: string;
  customer_id: number;
  msp_id: number | null;
  location_id: number | null;
  policy_id: number | null;
  device_id: number | null;
  user_id: number | null;
  user_name: string;
  group_id: number | null;
  client_ip: string;
  qname: string;
  qtype: string;
  protocol: string;
  decision: string;
  reason: string;
  categories: number[];
  rcode: string;
  answer_source: string;
  latency_us: number;
  matched_name: string;
}

/** `row` as the streams' JSON record (docs/operations.md "Query-log streaming"). */
export function streamRecord(row: StreamRow): StreamRecord {
  return {
    time: new Date(row.ts).toISOString(),
    customer_id: row.customer_id,
    msp_id: row.msp_id,
    location_id: row.location_id,
    policy_id: row.policy_id,
    device_id: row.device_id ?? null,
    user_id: row.user_id ?? null,
    user_name: row.user_name ?? '',
    group_id: row.group_id ?? null,
    client_ip: row.client_ip,
    qname: row.qname,
    qtype: row.qtype,
    protocol: row.protocol,
    decision: row.action,
    reason: row.reason,
    categories: row.categories === '' ? [] : row.categories.split(',').map(Number),
    rcode: row.rcode,
    answer_source: row.answer_source,
    latency_us: row.latency_us,
    matched_name: row.matched_name ?? '',
  };
}

/** dnstap's `extra` (field 3): Cordon's decision and tenant, as JSON (docs/operations.md "Query-log streaming"). */
export function dnstapExtra(row: StreamRow): string {
  return JSON.stringify({
    decision: row.action,
    reason: row.reason,
    categories: row.categories === '' ? [] : row.categories.split(',').map(Number),
    customer_id: row.customer_id,
    msp_id: row.msp_id,
    location_id: row.location_id,
    policy_id: row.policy_id,
    matched_name: row.matched_name ?? '',
  });
}

// ---- protobuf (https://developers.google.com/protocol-buffers/docs/encoding: varints, length-delimited, fixed32)

/** A growing byte buffer with protobuf's field encodings; one per thread, reused across messages. */
class ProtoWriter {
  buf = Buffer.alloc(4096);
  len = 0;

  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = Buffer.alloc(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  varint(v: number): void {
    this.room(10);
    // Values here are below 2^53: split so no bit is lost to 32-bit operators.
    while (v >= 0x80) {
      this.buf[this.len++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.len++] = v;
  }

  tag(field: number, wireType: 0 | 2 | 5): void {
    this.varint((field << 3) | wireType);
  }

  uint(field: number, v: number): void {
    this.tag(field, 0);
    this.varint(v);
  }

  fixed32(field: number, v: number): void {
    this.tag(field, 5);
    this.room(4);
    this.buf.writeUInt32LE(v >>> 0, this.len);
    this.len += 4;
  }

  bytes(field: number, b: Uint8Array): void {
    this.tag(field, 2);
    this.varint(b.length);
    this.room(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }
}

/**
 * Field numbers of dnstap.proto (the dnstap schema, github.com/dnstap/dnstap.pb): `Dnstap` —
 * identity 1, version 2, extra 3, message 14, type 15 (MESSAGE = 1); `Message` — type 1
 * (CLIENT_RESPONSE = 6), socket_family 2 (INET 1, INET6 2), socket_protocol 3 (UDP 1, TCP 2, DOT 3,
 * DOH 4), query_address 4, query_time_sec 8, query_time_nsec 9 (fixed32), query_message 10,
 * response_time_sec 12, response_time_nsec 13 (fixed32), response_message 14.
 */
const DNSTAP = { identity: 1, version: 2, extra: 3, message: 14, type: 15, MESSAGE: 1 } as const;
const MSG = {
  type: 1,
  socketFamily: 2,
  socketProtocol: 3,
  queryAddress: 4,
  queryTimeSec: 8,
  queryTimeNsec: 9,
  queryMessage: 10,
  responseTimeSec: 12,
  responseTimeNsec: 13,
  responseMessage: 14,
  CLIENT_RESPONSE: 6,
} as const;
const SOCKET_PROTOCOL: Record<string, number> = { udp: 1, tcp: 2, dot: 3, doh: 4 };

const require = createRequire(import.meta.url);
const dnsTypes = require('dns-packet/types') as { toType(name: string): number };
const dnsRcodes = require('dns-packet/rcodes') as { toRcode(name: string): number };

/** The qtype number of a query-log `qtype` (`A`, `HTTPS`, `TYPE65`…; RFC 3597 §5), 0 when unknown. */
export function qtypeCode(name: string): number {
  let code = qtypeCodes.get(name);
  if (code === undefined) {
    const m = /^TYPE(\d{1,5})$/.exec(name);
    code = name === 'HTTPS' ? 65 : name === 'SVCB' ? 64 : m ? Number(m[1]) & 0xffff : dnsTypes.toType(name);
    // The log's qtypes are a few dozen names at most (TYPEnnn included: 65,536).
    if (qtypeCodes.size < 70_000) qtypeCodes.set(name, code);
  }
  return code;
}
const qtypeCodes = new Map<string, number>();

/**
 * Writes `qname` in wire form (RFC 1035 §3.1) into `out` at `at` — labels as Latin-1 bytes, 63 at
 * most each, empty ones skipped — and returns the offset after it. `out` needs `qname.length + 2` bytes.
 */
function writeName(qname: string, out: Buffer, at: number): number {
  let o = at;
  let start = 0;
  for (let i = 0; i <= qname.length; i++) {
    if (i < qname.length && qname.charCodeAt(i) !== 0x2e) continue;
    const len = Math.min(i - start, 63);
    if (len > 0) {
      out[o++] = len;
      o += out.write(qname.slice(start, start + len), o, 'latin1');
    }
    start = i + 1;
  }
  out[o++] = 0;
  return o;
}

/**
 * A DNS message rebuilt from the logged question (RFC 1035 §4.1): id 0, RD set, one question of
 * class IN; a response also has QR and RA set and the logged rcode, and no records. The resolving
 * thread hands over rows, not wire messages (no copy per query): docs/operations.md "Query-log streaming".
 */
export function questionMessage(row: QueryLogRow, response: boolean): Buffer {
  const buf = Buffer.allocUnsafe(12 + row.qname.length + 2 + 4);
  // id 0; QDCOUNT 1, ANCOUNT, NSCOUNT, ARCOUNT 0.
  buf.writeUInt32BE((response ? 0x8180 | (dnsRcodes.toRcode(row.rcode) & 0xf) : 0x0100) >>> 0, 0);
  buf.writeUInt32BE(0x00010000, 4);
  buf.writeUInt32BE(0, 8);
  const end = writeName(row.qname, buf, 12);
  buf.writeUInt16BE(qtypeCode(row.qtype), end);
  buf.writeUInt16BE(1, end + 2);
  return buf.subarray(0, end + 4);
}

/** The 4 or 16 bytes of an IP address, or null for anything else. */
function addressBytes(ip: string): Buffer | null {
  const family = isIP(ip);
  if (family === 4) return Buffer.from(ip.split('.').map(Number));
  if (family !== 6) return null;
  const [head, tail = ''] = ip.includes('::') ? ip.split('::') : [ip, undefined];
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  let h = groups(head);
  let t = groups(tail);
  // An IPv4-mapped tail (::ffff:1.2.3.4) becomes two groups.
  const last = (t.length > 0 ? t : h).at(-1);
  if (last?.includes('.')) {
    const v4 = last.split('.').map(Number);
    const extra = [((v4[0]! << 8) | v4[1]!).toString(16), ((v4[2]! << 8) | v4[3]!).toString(16)];
    if (t.length > 0) t = [...t.slice(0, -1), ...extra];
    else h = [...h.slice(0, -1), ...extra];
  }
  const all = ip.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  const out = Buffer.alloc(16);
  for (let i = 0; i < 8; i++) out.writeUInt16BE(Number.parseInt(all[i] ?? '0', 16) & 0xffff, i * 2);
  return out;
}

const proto = new ProtoWriter();
const inner = new ProtoWriter();

/**
 * One dnstap `Dnstap` message (type MESSAGE) holding a CLIENT_RESPONSE `Message` for `row`, as a
 * Frame Streams data frame: a 32-bit big-endian length, then the protobuf bytes (Frame Streams
 * protocol, "Data frame"). Query time: the row's `ts` (ms); response time: `ts` + `latency_us`.
 * `query_message` and `response_message` are rebuilt from the question ({@link questionMessage}).
 */
export function dnstapFrame(row: StreamRow, identity: Uint8Array, version: Uint8Array): Buffer {
  inner.len = 0;
  inner.uint(MSG.type, MSG.CLIENT_RESPONSE);
  const addr = addressBytes(row.client_ip);
  if (addr !== null) {
    inner.uint(MSG.socketFamily, addr.length === 4 ? 1 : 2);
    inner.bytes(MSG.queryAddress, addr);
  }
  const protocol = SOCKET_PROTOCOL[row.protocol];
  if (protocol !== undefined) inner.uint(MSG.socketProtocol, protocol);
  const sec = Math.floor(row.ts / 1000);
  inner.uint(MSG.queryTimeSec, sec);
  inner.fixed32(MSG.queryTimeNsec, Math.round((row.ts - sec * 1000) * 1e6));
  const query = questionMessage(row, false);
  inner.bytes(MSG.queryMessage, query);
  const doneUs = row.ts * 1000 + row.latency_us;
  const rsec = Math.floor(doneUs / 1e6);
  inner.uint(MSG.responseTimeSec, rsec);
  inner.fixed32(MSG.responseTimeNsec, Math.round((doneUs - rsec * 1e6) * 1000));
  // The response: the query's bytes with QR, RA and the rcode.
  query.writeUInt16BE(0x8180 | (dnsRcodes.toRcode(row.rcode) & 0xf), 2);
  inner.bytes(MSG.responseMessage, query);

  proto.len = 0;
  proto.bytes(DNSTAP.identity, identity);
  proto.bytes(DNSTAP.version, version);
  proto.bytes(DNSTAP.extra, Buffer.from(dnstapExtra(row)));
  proto.bytes(DNSTAP.message, inner.buf.subarray(0, inner.len));
  proto.uint(DNSTAP.type, DNSTAP.MESSAGE);
  const frame = Buffer.allocUnsafe(4 + proto.len);
  frame.writeUInt32BE(proto.len, 0);
  proto.buf.copy(frame, 4, 0, proto.len);
  return frame;
}

/** Frame Streams control frame types (Frame Streams protocol, "Control frame"). */
export const FSTRM = { ACCEPT: 1, START: 2, STOP: 3, READY: 4, FINISH: 5, CONTENT_TYPE_FIELD: 1 } as const;
/** The content type dnstap readers accept. */
export const DNSTAP_CONTENT_TYPE = 'protobuf:dnstap.Dnstap';

/**
 * A Frame Streams control frame: the escape (a zero length), the control frame's length, its type,
 * then a CONTENT_TYPE field (type, length, bytes) when `contentType` is given.
 */
export function controlFrame(type: number, contentType?: string): Buffer {
  const ct = contentType === undefined ? null : Buffer.from(contentType);
  const body = 4 + (ct === null ? 0 : 8 + ct.length);
  const b = Buffer.alloc(8 + body);
  b.writeUInt32BE(0, 0);
  b.writeUInt32BE(body, 4);
  b.writeUInt32BE(type, 8);
  if (ct !== null) {
    b.writeUInt32BE(FSTRM.CONTENT_TYPE_FIELD, 12);
    b.writeUInt32BE(ct.length, 16);
    ct.copy(b, 20);
  }
  return b;
}

/**
 * An RFC 5424 message (§6) framed by octet counting (RFC 6587 §3.4.1): facility local0 (16),
 * severity informational (6) or notice (5) for a blocked query, APP-NAME `cordon`, MSGID `query`,
 * one SD-ELEMENT `query@32473` (the documentation enterprise number, RFC 5612) with the record's
 * fields as SD-PARAMs (`"`, `\` and `]` escaped, §6.3.3), and a short MSG.
 */
export function syslogFrame(row: StreamRow, hostname: string): Buffer {
  const r = streamRecord(row);
  const severity = r.decision === 'blocked' ? 5 : 6;
  const params: string[] = [];
  for (const [k, v] of Object.entries(r)) {
    if (k === 'time' || v === null || v === '') continue;
    const text = Array.isArray(v) ? v.join(',') : String(v);
    params.push(`${k}="${text.replace(/["\\\]]/g, (c) => `\\${c}`)}"`);
  }
  const line = `<${16 * 8 + severity}>1 ${r.time} ${hostname} cordon - query [query@32473 ${params.join(' ')}] ${r.qname} ${r.qtype} ${r.decision}`;
  const body = Buffer.from(line);
  return Buffer.concat([Buffer.from(`${body.length} `), body]);
}
