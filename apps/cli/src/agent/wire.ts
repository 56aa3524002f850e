/**
 * The few DNS wire operations `cordon agent` needs (RFC 1035 §4.1, RFC 6891 §6.1): read the
 * question's name, add the user option to a query's OPT record, build a SERVFAIL. The agent relays
 * messages; it never decodes answers.
 */

/** EDNS(0) option code of the device key (docs/agent.md "Wire format"). */
export const EDNS_DEVICE_KEY = 65073;
/** EDNS(0) option code of the OS user name (docs/agent.md "Wire format"). */
export const EDNS_USER = 65074;

/** Offset just past the name at `off`, or -1 when it runs past the buffer (no pointers followed). */
function skipName(buf: Buffer, off: number): number {
  for (let total = 0; ; ) {
    if (off >= buf.length) return -1;
    const len = buf[off]!;
    if (len === 0) return off + 1;
    if ((len & 0xc0) === 0xc0) return off + 2 <= buf.length ? off + 2 : -1;
    if ((len & 0xc0) !== 0) return -1;
    total += len + 1;
    if (total > 255) return -1;
    off += len + 1;
  }
}

/**
 * The first question of a query (or, with `response`, of an answer): its lower-cased name (no
 * trailing dot; `.` for the root) and where it ends; null when malformed or of the other kind.
 */
export function readQuestion(msg: Buffer, response = false): { qname: string; end: number } | null {
  if (msg.length < 12 || ((msg[2]! & 0x80) !== 0) !== response || msg.readUInt16BE(4) !== 1) return null;
  const labels: string[] = [];
  let off = 12;
  for (;;) {
    if (off >= msg.length) return null;
    const len = msg[off]!;
    if (len === 0) break;
    if ((len & 0xc0) !== 0 || off + 1 + len > msg.length) return null;
    labels.push(msg.toString('latin1', off + 1, off + 1 + len).toLowerCase());
    off += len + 1;
  }
  const end = off + 1 + 4;
  if (end > msg.length) return null;
  return { qname: labels.length === 0 ? '.' : labels.join('.'), end };
}

/** One EDNS(0) option to add: its code and value. */
export interface EdnsOption {
  code: number;
  value: Buffer;
}

/**
 * `query` with `options` added to its OPT pseudo-record (RFC 6891 §6.1.2), or with an OPT record
 * (payload 1232, version 0) appended when it has none. Any option of the same codes already present
 * stays (the resolver reads the first). Returns the query unchanged when it cannot be walked.
 */
export function withEdnsOptions(query: Buffer, options: readonly EdnsOption[]): Buffer {
  if (options.length === 0) return query;
  const data = Buffer.concat(
    options.flatMap((o) => {
      const head = Buffer.alloc(4);
      head.writeUInt16BE(o.code, 0);
      head.writeUInt16BE(o.value.length, 2);
      return [head, o.value];
    }),
  );
  const q = readQuestion(query);
  if (q === null) return query;
  const an = query.readUInt16BE(6);
  const ns = query.readUInt16BE(8);
  const ar = query.readUInt16BE(10);
  let off = q.end;
  for (let i = 0; i < an + ns + ar; i++) {
    off = skipName(query, off);
    if (off < 0 || off + 10 > query.length) return query;
    const type = query.readUInt16BE(off);
    const rdlen = query.readUInt16BE(off + 8);
    if (type === 41 && i >= an + ns) {
      // Grow this OPT's RDATA: [.. rdata end) + data + the rest.
      const end = off + 10 + rdlen;
      if (end > query.length || rdlen + data.length > 0xffff) return query;
      const out = Buffer.concat([query.subarray(0, end), data, query.subarray(end)]);
      out.writeUInt16BE(rdlen + data.length, off + 8);
      return out;
    }
    off += 10 + rdlen;
  }
  const opt = Buffer.alloc(11);
  opt[0] = 0;
  opt.writeUInt16BE(41, 1);
  opt.writeUInt16BE(1232, 3);
  opt.writeUInt32BE(0, 5);
  opt.writeUInt16BE(data.length, 9);
  const out = Buffer.concat([query.subarray(0, off), opt, data]);
  out.writeUInt16BE(ar + 1, 10);
  return out;
}

/**
 * A SERVFAIL answer to `query` (header and question only, RFC 1035 §4.1.1): what the agent says
 * when the name's resolver cannot be reached (it never falls back to an unfiltered resolver).
 */
export function servfail(query: Buffer): Buffer | null {
  const q = readQuestion(query);
  if (q === null) return null;
  const out = Buffer.from(query.subarray(0, q.end));
  const flags = query.readUInt16BE(2);
  out.writeUInt16BE(0x8000 | (flags & 0x7800) | (flags & 0x0100) | 0x0080 | 2, 2);
  out.writeUInt16BE(1, 4);
  out.writeUInt32BE(0, 6);
  out.writeUInt16BE(0, 10);
  return out;
}

/**
 * The largest UDP answer `query`'s sender accepts (RFC 6891 §6.2.3: its OPT's payload size, at
 * least 512; RFC 1035 §4.2.1: 512 without EDNS(0)), capped at 1232 like Cordon's resolver.
 */
export function udpLimit(query: Buffer): number {
  const q = readQuestion(query);
  if (q === null) return 512;
  const rr = query.readUInt16BE(6) + query.readUInt16BE(8);
  const ar = query.readUInt16BE(10);
  let off = q.end;
  for (let i = 0; i < rr + ar; i++) {
    off = skipName(query, off);
    if (off < 0 || off + 10 > query.length) return 512;
    if (query.readUInt16BE(off) === 41 && i >= rr) return Math.min(1232, Math.max(512, query.readUInt16BE(off + 2)));
    off += 10 + query.readUInt16BE(off + 8);
  }
  return 512;
}

/**
 * `answer` as it may go back over UDP to the sender of `query`: itself when it fits
 * {@link udpLimit}, else its header and question with TC set and no records, so the client retries
 * over TCP (RFC 1035 §4.2.1, RFC 7766 §5).
 */
export function fitUdp(query: Buffer, answer: Buffer): Buffer {
  if (answer.length <= udpLimit(query)) return answer;
  const q = readQuestion(answer, true);
  if (q === null) return answer.subarray(0, 12);
  const out = Buffer.from(answer.subarray(0, q.end));
  out.writeUInt16BE(answer.readUInt16BE(2) | 0x0200, 2);
  out.writeUInt32BE(0, 6);
  out.writeUInt16BE(0, 10);
  return out;
}
