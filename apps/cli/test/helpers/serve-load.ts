/**
 * What the fuzz, soak and noisy-neighbour tests share (issue 30 "The suite proves it, not a probe";
 * docs/security.md "Availability under hostile clients and heavy use"): a real `cordon serve` child
 * process on a fresh SQLite file, a scripted upstream that tolerates any question, the child's
 * memory and open descriptors read from /proc, a least-squares slope, and small wire-level DNS
 * helpers (RFC 1035 §4.1).
 */
import dgram from 'node:dgram';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ApiSession, apiLogin } from '../../../../e2e/support/api.ts';
import { CLI, type CordonProcess, startCordon } from '../../../../e2e/support/cordon.ts';

/**
 * `CORDON_SUITE_LONG=1`: the long runs — millions of fuzzed datagrams, a soak of minutes
 * (docs/security.md "Long runs").
 */
export const LONG = process.env.CORDON_SUITE_LONG === '1';

/** The address the scripted upstream answers for an A question. */
export const UPSTREAM_A = '192.0.2.10';
/** The address `cordon serve` answers for a blocked A question (CORDON_BLOCK_IPV4). */
export const BLOCK_A = '198.51.100.9';

const ADMIN = { email: 'root@load.test', password: 'Sup3r-secret' };

/** The all-roles unit, whose glibc settings the server under load runs with. */
const UNIT = new URL('../../../../deploy/systemd/cordon.service', import.meta.url);

/**
 * The `MALLOC_*` settings of the deployed unit (`Environment=MALLOC_ARENA_MAX=2` …; mallopt(3)
 * "ENVIRONMENT"), so that the memory the load tests read is the memory a deployment pays
 * (docs/decisions.md "The addon does UDP I/O only"), as bench/peers/run.sh does for the resolver.
 */
function deployedMallocEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const m of readFileSync(UNIT, 'utf8').matchAll(/^Environment=(MALLOC_[A-Z_]+)=(\d+)$/gm)) env[m[1]!] = m[2];
  return env;
}

/** A running `cordon serve` under test. */
export interface ServeUnderTest {
  readonly cordon: CordonProcess;
  /** The child's process id (node itself, so /proc/<pid> is the server's). */
  readonly pid: number;
  readonly httpPort: number;
  readonly dnsPort: number;
  readonly dataDir: string;
  /** A session of the system admin. */
  readonly admin: ApiSession;
  /** Logs the system admin in again (a fresh token). */
  login(): Promise<ApiSession>;
  /** True while the child has not exited. */
  alive(): boolean;
  /** How the child ended (null: running) and its last `lines` lines of output, for failure messages. */
  postmortem(lines?: number): string;
  /** SIGTERM, wait for the exit, remove the data directory; resolves to the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Boots `cordon serve` from the sources (tsx) on loopback, every role, a fresh SQLite file, the
 * scripted upstream at `upstreamPort`, blocked A answers {@link BLOCK_A}, glibc's heap set as the
 * deployed unit sets it; `env` is added last.
 * @throws Error with the output when it does not boot within 90 s
 */
export async function startServe(upstreamPort: number, env: NodeJS.ProcessEnv = {}): Promise<ServeUnderTest> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cordon-load-'));
  const cordon = await startCordon(
    {
      CORDON_DATA_DIR: dataDir,
      CORDON_HTTP_ADDR: '127.0.0.1:0',
      CORDON_DNS_ADDR: '127.0.0.1:0',
      CORDON_BLOCKPAGE_ADDR: '127.0.0.1:0',
      CORDON_BLOCKPAGE_HTTPS_ADDR: '127.0.0.1:0',
      CORDON_UPSTREAM: `127.0.0.1:${upstreamPort}`,
      CORDON_BLOCK_IPV4: BLOCK_A,
      CORDON_ADMIN_EMAIL: ADMIN.email,
      CORDON_ADMIN_PASSWORD: ADMIN.password,
      CORDON_LOG_LEVEL: 'warn',
      // The production default, which the load tests exist to exercise (`startCordon` picks normal).
      CORDON_QUERY_LOG_WRITER: 'idle',
      ...deployedMallocEnv(),
      ...env,
    },
    90_000,
    CLI,
  );
  const line = cordon.output.find((l) => l.startsWith('cordon serving:')) ?? '';
  const httpPort = Number(/ http=127\.0\.0\.1:(\d+)/.exec(line)?.[1]);
  const dnsPort = Number(/ dns=127\.0\.0\.1:(\d+)/.exec(line)?.[1]);
  let exited = false;
  cordon.child.once('exit', () => {
    exited = true;
  });
  const login = () => apiLogin(httpPort, ADMIN.email, ADMIN.password);
  return {
    cordon,
    pid: cordon.child.pid ?? 0,
    httpPort,
    dnsPort,
    dataDir,
    admin: await login(),
    login,
    alive: () => !exited && cordon.child.exitCode === null && cordon.child.signalCode === null,
    postmortem: (lines = 20) =>
      `exit ${cordon.child.exitCode ?? cordon.child.signalCode ?? 'none yet'}; output:\n${cordon.output.slice(-lines).join('\n')}`,
    stop: async () => {
      const code = exited ? cordon.child.exitCode : await cordon.stop();
      rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}

/** A JSON call that must succeed. @throws Error with the status and body on a status ≥ 300 */
export async function ok<T = { id: number }>(
  session: ApiSession,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const res = await session.call(method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as T;
}

/** One tenant made by {@link addCustomer}. */
export interface Tenant {
  readonly customerId: number;
  readonly policyId: number;
  readonly email: string;
  readonly password: string;
}

/**
 * As the system admin: a customer of `mspId` with its own primary admin, a policy, and a static-IP
 * location claiming `addresses` (CIDR) with that policy.
 */
export async function addCustomer(
  admin: ApiSession,
  mspId: number,
  name: string,
  addresses: string[],
): Promise<Tenant> {
  const email = `${name.toLowerCase()}@load.test`;
  const password = 'Passw0rd!';
  const customer = await ok(admin, 'POST', '/users/', {
    accountName: name,
    msp_id: mspId,
    timezone: 'UTC',
    admin_email: email,
    admin_password: password,
  });
  const policy = await ok(admin, 'POST', '/policies', {
    user_id: customer.id,
    name: `${name} policy`,
    filtering_level: 'low',
  });
  await ok(admin, 'POST', `/users/${customer.id}/locations/staticip`, { name, policy_id: policy.id, addresses });
  return { customerId: customer.id, policyId: policy.id, email, password };
}

/** An MSP for {@link addCustomer}. @returns its id */
export async function addMsp(admin: ApiSession, name: string): Promise<number> {
  return (await ok(admin, 'POST', '/msp', { name, company_name: `${name} Ltd` })).id;
}

/**
 * The values of metric `name` on the running server's /metrics (Prometheus text format), by their
 * label set as written (`{outcome="written"}`; '' without labels).
 */
export async function scrapeMetric(httpPort: number, name: string): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${httpPort}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)(\{[^}]*\})? ([0-9.e+-]+)$/.exec(line);
    if (m?.[1] === name) out[m[2] ?? ''] = Number(m[3]);
  }
  return out;
}

/**
 * Waits until the server's query log has no backlog: no row in memory
 * (`cordon_dns_query_log_queued_rows`) and no spool bytes, read twice 600 ms apart (the open batch
 * is handed over every 500 ms). Memory read before then counts rows waiting for the writer thread
 * (at most 50,000: docs/decisions.md "Query-log spool"), not what the test is after.
 * @returns the time waited, ms
 * @throws Error naming the backlog when it is still there after `timeoutMs`
 */
export async function queryLogDrained(httpPort: number, timeoutMs = 60_000): Promise<number> {
  const started = performance.now();
  let empties = 0;
  for (;;) {
    const queued = (await scrapeMetric(httpPort, 'cordon_dns_query_log_queued_rows'))[''];
    const spoolBytes = (await scrapeMetric(httpPort, 'cordon_dns_query_log_spool_bytes'))[''];
    empties = queued === 0 && spoolBytes === 0 ? empties + 1 : 0;
    if (empties === 2) return Math.round(performance.now() - started);
    if (performance.now() - started > timeoutMs)
      throw new Error(`query log not drained after ${timeoutMs} ms: ${queued} rows queued, ${spoolBytes} spool bytes`);
    await new Promise((r) => setTimeout(r, 600));
  }
}

/** Memory and descriptors of a process, read from /proc. */
export interface ProcessSample {
  /** Resident set size, KiB (`VmRSS` of /proc/<pid>/status). */
  readonly rssKiB: number;
  /** Proportional set size, KiB (`Pss` of /proc/<pid>/smaps_rollup; equals rssKiB where unavailable). */
  readonly pssKiB: number;
  /** Open file descriptors (entries of /proc/<pid>/fd). */
  readonly fds: number;
  /**
   * Of `fds`, the UDP sockets (an inode of /proc/<pid>/net/udp or udp6): the resolver's upstream
   * attempts, one socket each while it waits, so their count follows the queries in flight.
   */
  readonly udpFds: number;
}

/** The socket inodes of /proc/<pid>/net/udp and udp6 (proc(5): the tenth column). */
function udpInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['udp', 'udp6']) {
    let text = '';
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue; // No IPv6 here.
    }
    for (const line of text.split('\n').slice(1)) {
      const inode = line.trim().split(/\s+/)[9];
      if (inode !== undefined) inodes.add(inode);
    }
  }
  return inodes;
}

/** Reads {@link ProcessSample} of `pid`. @throws when the process is gone */
export function sampleProcess(pid: number): ProcessSample {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKiB = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
  let pssKiB = rssKiB;
  try {
    pssKiB = Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? rssKiB);
  } catch {
    // smaps_rollup needs Linux ≥ 4.14: RSS then.
  }
  const udp = udpInodes(pid);
  let fds = 0;
  let udpFds = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    fds++;
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      if (inode !== undefined && udp.has(inode)) udpFds++;
    } catch {
      // Closed between the listing and the read: counted, as the listing saw it.
    }
  }
  return { rssKiB, pssKiB, fds, udpFds };
}

/**
 * Least-squares slope of `ys` over `xs` (same length ≥ 2), in y-units per x-unit; 0 when every x
 * is equal.
 */
export function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** The `q`-quantile (0–1) of `values` (sorted here), or NaN for none. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN;
}

/** qtype numbers used by the tests (RFC 1035 §3.2.2, RFC 3596, RFC 9460). */
export const QTYPE = { A: 1, MX: 15, TXT: 16, AAAA: 28, OPT: 41, HTTPS: 65, ANY: 255 } as const;

/** A wire name (RFC 1035 §3.1): length-prefixed labels and the root's zero. */
export function wireName(name: string): Buffer {
  const parts = name === '' || name === '.' ? [] : name.split('.');
  return Buffer.concat([
    ...parts.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'latin1')])),
    Buffer.from([0]),
  ]);
}

/** Options of {@link buildQuery}. */
export interface QueryOptions {
  readonly qtype?: number;
  /** Header flags word; default RD (0x0100). */
  readonly flags?: number;
  /** EDNS(0) OPT in the additional section (RFC 6891 §6.1.2) with these option TLVs; absent: no OPT. */
  readonly edns?: { udpSize?: number; dnssecOk?: boolean; options?: Array<{ code: number; data: Buffer }> };
}

/** A query for `name` (one question, class IN), built byte by byte. */
export function buildQuery(id: number, name: string, opts: QueryOptions = {}): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id & 0xffff, 0);
  header.writeUInt16BE(opts.flags ?? 0x0100, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(opts.edns ? 1 : 0, 10);
  const question = Buffer.alloc(4);
  question.writeUInt16BE(opts.qtype ?? QTYPE.A, 0);
  question.writeUInt16BE(1, 2);
  const parts = [header, wireName(name), question];
  if (opts.edns) {
    const options = Buffer.concat(
      (opts.edns.options ?? []).map((o) => {
        const tl = Buffer.alloc(4);
        tl.writeUInt16BE(o.code, 0);
        tl.writeUInt16BE(o.data.length, 2);
        return Buffer.concat([tl, o.data]);
      }),
    );
    const opt = Buffer.alloc(11);
    opt.writeUInt16BE(QTYPE.OPT, 1);
    opt.writeUInt16BE(opts.edns.udpSize ?? 1232, 3);
    opt.writeUInt16BE(opts.edns.dnssecOk ? 0x8000 : 0, 7);
    opt.writeUInt16BE(options.length, 9);
    parts.push(opt, options);
  }
  return Buffer.concat(parts);
}

/** What {@link readReply} makes of a reply. */
export interface Reply {
  readonly id: number;
  readonly rcode: number;
  readonly flags: number;
  /** `raw[12, questionEnd)`, or an empty buffer without a question. */
  readonly question: Buffer;
  /** The A records' addresses of the answer section. */
  readonly a: string[];
}

/**
 * Reads a DNS response strictly (RFC 1035 §4.1): QR set, every section's records within the
 * message and every name well-formed (compression pointers only backwards, at most 128 hops).
 * @returns null for anything that is not such a message
 */
export function readReply(raw: Buffer): Reply | null {
  if (raw.length < 12 || (raw[2]! & 0x80) === 0) return null;
  const count = (i: number) => raw.readUInt16BE(4 + 2 * i);
  let off = 12;
  const name = (at: number): number => {
    let hops = 0;
    let end = -1;
    let total = 0;
    for (;;) {
      if (at >= raw.length) return -1;
      const l = raw[at]!;
      if (l === 0) return end < 0 ? at + 1 : end;
      if ((l & 0xc0) === 0xc0) {
        if (at + 2 > raw.length || ++hops > 128) return -1;
        const to = ((l & 0x3f) << 8) | raw[at + 1]!;
        if (to >= at) return -1;
        if (end < 0) end = at + 2;
        at = to;
        continue;
      }
      if ((l & 0xc0) !== 0) return -1;
      total += l + 1;
      if (total > 255) return -1;
      at += l + 1;
    }
  };
  let question: Buffer = Buffer.alloc(0);
  for (let q = 0; q < count(0); q++) {
    const start = off;
    off = name(off);
    if (off < 0 || off + 4 > raw.length) return null;
    off += 4;
    if (q === 0) question = raw.subarray(start, off);
  }
  const a: string[] = [];
  for (let r = 0; r < count(1) + count(2) + count(3); r++) {
    off = name(off);
    if (off < 0 || off + 10 > raw.length) return null;
    const type = raw.readUInt16BE(off);
    const rdlen = raw.readUInt16BE(off + 8);
    if (off + 10 + rdlen > raw.length) return null;
    if (r < count(1) && type === QTYPE.A && rdlen === 4) a.push([...raw.subarray(off + 10, off + 14)].join('.'));
    off += 10 + rdlen;
  }
  return { id: raw.readUInt16BE(0), flags: raw.readUInt16BE(2), rcode: raw[3]! & 0xf, question, a };
}

/**
 * Sends `query` over UDP from `from` (a loopback address) to `port`.
 * @returns the reply read by {@link readReply} (null: not a well-formed response) and its round trip
 *   in ms, or undefined without an answer within `timeoutMs`
 */
export async function askUdp(
  port: number,
  query: Buffer,
  from = '127.0.0.1',
  timeoutMs = 2000,
): Promise<{ reply: Reply | null; ms: number } | undefined> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, from, resolve));
  try {
    return await new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), timeoutMs);
      const sent = performance.now();
      socket.once('message', (msg) => {
        clearTimeout(timer);
        resolve({ reply: readReply(msg), ms: performance.now() - sent });
      });
      socket.send(query, port, '127.0.0.1');
    });
  } finally {
    socket.close();
  }
}

/** qtypes whose answers {@link startScriptedUpstream} lets the cache keep. */
const CACHED_TYPES: ReadonlySet<number> = new Set([QTYPE.A, QTYPE.AAAA, QTYPE.MX, QTYPE.TXT, QTYPE.HTTPS]);

/** A scripted upstream (UDP and TCP on one loopback port). */
export interface ScriptedUpstream {
  readonly port: number;
  /** Questions answered so far. */
  answered(): number;
  close(): Promise<void>;
}

/**
 * An upstream that answers whatever well-formed question it gets and ignores the rest (it must
 * outlive any fuzzed name the resolver forwards): A → {@link UPSTREAM_A}, AAAA → 2001:db8::10,
 * other types NODATA; names starting `nx.` NXDOMAIN. Only names in `cacheable` get TTL 300 (for A,
 * AAAA, MX, TXT and HTTPS: a fuzzed qtype must not make a new cache key); every other answer has TTL 0, which the answer cache does not store, so a run of unique names
 * exercises the upstream path without filling the (bounded, 100,000-entry) cache.
 */
export async function startScriptedUpstream(cacheable: ReadonlySet<string> = new Set()): Promise<ScriptedUpstream> {
  let answered = 0;
  const respond = (q: Buffer): Buffer | null => {
    if (q.length < 12 || (q[2]! & 0x80) !== 0 || q.readUInt16BE(4) !== 1) return null;
    let off = 12;
    const labels: string[] = [];
    while (off < q.length && q[off]! !== 0) {
      const l = q[off]!;
      if (l > 63 || off + 1 + l > q.length) return null;
      labels.push(q.toString('latin1', off + 1, off + 1 + l).toLowerCase());
      off += l + 1;
    }
    if (off + 5 > q.length) return null;
    const qEnd = off + 5;
    const qtype = q.readUInt16BE(off + 1);
    const name = labels.join('.');
    const ttl = cacheable.has(name) && CACHED_TYPES.has(qtype) ? 300 : 0;
    const nx = labels[0] === 'nx';
    let rdata: Buffer | null = null;
    if (!nx && qtype === QTYPE.A) rdata = Buffer.from(UPSTREAM_A.split('.').map(Number));
    if (!nx && qtype === QTYPE.AAAA) rdata = Buffer.from('20010db8000000000000000000000010', 'hex');
    const header = Buffer.alloc(12);
    header.writeUInt16BE(q.readUInt16BE(0), 0);
    header.writeUInt16BE(0x8180 | (q.readUInt16BE(2) & 0x0010) | (nx ? 3 : 0), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(rdata ? 1 : 0, 6);
    const parts = [header, q.subarray(12, qEnd)];
    if (rdata) {
      const rr = Buffer.alloc(12);
      rr.writeUInt16BE(0xc00c, 0);
      rr.writeUInt16BE(qtype, 2);
      rr.writeUInt16BE(1, 4);
      rr.writeUInt32BE(ttl, 6);
      rr.writeUInt16BE(rdata.length, 10);
      parts.push(rr, rdata);
    }
    answered++;
    return Buffer.concat(parts);
  };
  const tcp = net.createServer((socket) => {
    let buf = Buffer.alloc(0);
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 2 && buf.length >= buf.readUInt16BE(0) + 2) {
        const res = respond(buf.subarray(2, 2 + buf.readUInt16BE(0)));
        buf = buf.subarray(2 + buf.readUInt16BE(0));
        if (!res) continue;
        const len = Buffer.alloc(2);
        len.writeUInt16BE(res.length, 0);
        socket.write(Buffer.concat([len, res]));
      }
    });
  });
  // UDP picks a free port and TCP takes the same number, which may be some TCP client's ephemeral
  // port at that moment (other tests run in parallel): then another.
  let udp: dgram.Socket | undefined;
  let port = 0;
  for (let attempt = 1; udp === undefined; attempt++) {
    const socket = dgram.createSocket({ type: 'udp4', recvBufferSize: 8 << 20 });
    socket.on('message', (msg, rinfo) => {
      const res = respond(msg);
      if (res) socket.send(res, rinfo.port, rinfo.address);
    });
    socket.on('error', () => {});
    await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
    port = socket.address().port;
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen(port, '127.0.0.1', () => {
          tcp.off('error', reject);
          resolve();
        });
      });
      udp = socket;
    } catch (err) {
      socket.close();
      if (attempt >= 20) throw err;
    }
  }
  const bound = udp;
  return {
    port,
    answered: () => answered,
    close: async () => {
      await new Promise<void>((r) => bound.close(() => r()));
      await new Promise<void>((r) => tcp.close(() => r()));
    },
  };
}
