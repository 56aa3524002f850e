import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { promisify } from 'node:util';
import type { DatabaseHandle } from '@cordon/db';
import { createTestDatabase } from '@cordon/db/testing';
import { ensureRootCa, readRootCertificatePem } from '@cordon/pki';
import { dotHostName, dotLabel } from '@cordon/shared';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedTenants } from './helpers/seed.ts';
import { type ResolverStack, startResolverStack, within } from './helpers/stack.ts';

const run = promisify(execFile);
const CA_SECRET = 'dot-test-ca-secret-0123456789-abcdef';
/** The DoT host-name suffix the resolver is given (`--dot-hostname`). */
const SUFFIX = 'dot.example';
/** What the fake upstream answers for any A question; a blocked A answers the block address 127.0.0.1. */
const ALLOWED = '192.0.2.10';
const BLOCKED = '127.0.0.1';
/** A device key as Cordon issues them (base64url: upper case and `_`, which a host name cannot carry as is). */
const DEVICE_KEY = 'Dev_Key-0123456789abcdefGHIJKLMN';
/** A virtual location's key, plain lower case: also accepted as the label itself. */
const LOCATION_KEY = 'vkeyacme';

/** A DNS query for `name` A with this id, as a DoT frame (2-byte length prefix, RFC 7858 §3.3). */
function frame(name: string, id: number): Buffer {
  const wire = dnsPacket.encode({
    type: 'query',
    id,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ name, type: 'A' }],
  });
  const out = Buffer.alloc(wire.length + 2);
  out.writeUInt16BE(wire.length, 0);
  wire.copy(out, 2);
  return out;
}

/** A Node TLS client of the DoT port that verifies the chain against `ca`, and reads framed answers. */
interface DotClient {
  socket: tls.TLSSocket;
  /** Answers by id: the first A address, or the rcode when there is none. */
  answers: Map<number, string>;
  closed: Promise<void>;
  ask(name: string, id: number): Promise<string>;
}

/**
 * Opens a DoT connection from `localAddress` with SNI `servername` (none when undefined), checking the
 * chain against `ca` and the name (`localhost` without SNI); resolves once the handshake is done.
 */
function connectDot(
  port: number,
  servername: string | undefined,
  ca: string,
  localAddress = '127.0.0.1',
  alpn?: string[],
) {
  return new Promise<DotClient>((resolve, reject) => {
    const socket = tls.connect({
      socket: net.connect({ host: '127.0.0.1', port, localAddress }),
      ca,
      ...(alpn ? { ALPNProtocols: alpn } : {}),
      ...(servername === undefined ? { servername: '' } : { servername }),
      // Verified against the name the client meant to reach; without SNI, the fallback leaf's localhost.
      checkServerIdentity: (_host, cert) => tls.checkServerIdentity(servername ?? 'localhost', cert),
    });
    const answers = new Map<number, string>();
    const waiters = new Map<number, (v: string) => void>();
    let buf = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 2 && buf.length >= buf.readUInt16BE(0) + 2) {
        const msg = dnsPacket.decode(buf.subarray(2, buf.readUInt16BE(0) + 2));
        buf = buf.subarray(buf.readUInt16BE(0) + 2);
        const a = msg.answers?.find((r) => r.type === 'A') as { data?: string } | undefined;
        const value = a?.data ?? String((msg as { rcode?: string }).rcode);
        answers.set(msg.id ?? -1, value);
        waiters.get(msg.id ?? -1)?.(value);
      }
    });
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    const ask = (name: string, id: number) =>
      new Promise<string>((res, rej) => {
        const timer = setTimeout(() => rej(new Error(`no answer ${id}`)), 3000);
        waiters.set(id, (v) => {
          clearTimeout(timer);
          res(v);
        });
        socket.write(frame(name, id));
      });
    socket.once('secureConnect', () => resolve({ socket, answers, closed, ask }));
    socket.once('error', reject);
  });
}

/**
 * DNS over TLS (RFC 7858; docs/agent.md "DoT") over real sockets on loopback: kdig +tls and a Node
 * TLS client that verifies the chain against the deployment root; the key from the leftmost label
 * of the server name; an unknown key or no server name identified by the source address; the TCP
 * transport's limits holding over TLS; the query log's protocol `dot`.
 *
 * Seed: customer Acme (default policy blocks Gambling 20; location HQ claims 127.0.0.1), policy
 * NewsBlock (blocks News 39) for a device of key {@link DEVICE_KEY}, policy Open (blocks nothing)
 * for a virtual location of key {@link LOCATION_KEY}.
 */
describe('DNS over TLS', () => {
  let handle: DatabaseHandle;
  let stack: ResolverStack;
  let dot: AddressInfo;
  let ca: string;
  let caFile: string;
  let customerId: number;

  beforeAll(async () => {
    handle = await createTestDatabase('sqlite');
    const seeded = await seedTenants(handle);
    customerId = seeded.customerId;
    const now = new Date().toISOString();
    const ts = { created_at: now, updated_at: now };
    const policy = async (name: string, blocked: number[]) => {
      const p = await handle.db
        .insertInto('policies')
        .values({
          customer_id: customerId,
          name,
          description: '',
          level: 'custom',
          is_default: 0,
          allow_unclassified: 1,
          ...ts,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      for (const c of blocked) {
        await handle.db
          .insertInto('policy_categories')
          .values({ policy_id: p.id, customer_id: customerId, category_id: c })
          .execute();
      }
      return p.id;
    };
    const newsBlock = await policy('NewsBlock', [39]);
    const open = await policy('Open', []);
    await handle.db
      .insertInto('devices')
      .values({
        customer_id: customerId,
        key: DEVICE_KEY,
        name: 'phone',
        policy_mode: 'policy',
        policy_id: newsBlock,
        ...ts,
      })
      .execute();
    await handle.db
      .insertInto('locations')
      .values({ customer_id: customerId, type: 'virtual', name: 'Phones', policy_id: open, key: LOCATION_KEY, ...ts })
      .execute();
    await ensureRootCa(handle, Buffer.from(CA_SECRET, 'utf8'));
    ca = (await readRootCertificatePem(handle)) ?? '';
    caFile = join(mkdtempSync(join(tmpdir(), 'cordon-dot-')), 'root.pem');
    writeFileSync(caFile, ca);
    stack = await startResolverStack(handle, {
      dot: { host: '127.0.0.1', port: 0, tls: { caSecret: CA_SECRET }, hostname: SUFFIX },
      tcp: { maxConnectionsPerSource: 3, idleMs: 400, messageTimeoutMs: 300 },
    });
    dot = stack.resolver.address.dot!;
  });

  afterAll(async () => {
    await stack?.close();
    await handle?.close();
  });

  /** kdig over TLS with SNI `sni`, verifying the certificate for that name against the root; the first A or the status. */
  const kdigA = async (sni: string | null, name: string, ...extra: string[]): Promise<string> => {
    const { stdout } = await run(
      'kdig',
      [
        '@127.0.0.1',
        '-p',
        String(dot.port),
        '+tls',
        `+tls-ca=${caFile}`,
        ...(sni === null ? ['+tls-hostname=localhost'] : [`+tls-sni=${sni}`, `+tls-hostname=${sni}`]),
        '+retry=0',
        '+timeout=3',
        ...extra,
        name,
        'A',
      ],
      { timeout: 15_000 },
    );
    const a = /\bIN\s+A\s+([0-9.]+)/.exec(stdout.split(';; ANSWER SECTION:')[1] ?? '')?.[1];
    return a ?? /status: ([A-Z]+)/.exec(stdout)?.[1] ?? stdout;
  };

  it('answers kdig +tls and identifies a device by the base32 label of its key in the server name', async () => {
    const sni = dotHostName(DEVICE_KEY, SUFFIX)!;
    expect(sni).toBe(`${dotLabel(DEVICE_KEY)}.${SUFFIX}`);
    expect(sni).toMatch(/^[a-z2-7]{52}\.dot\.example$/);
    // The device's NewsBlock policy, not HQ's default (which blocks gambling and allows news).
    expect(await kdigA(sni, 'news.example')).toBe(BLOCKED);
    expect(await kdigA(sni, 'gambling.example')).toBe(ALLOWED);
    // Any case: host names compare case-insensitively.
    expect(await kdigA(sni.toUpperCase(), 'news.example')).toBe(BLOCKED);
    // From an address no location claims: the key alone identifies.
    expect(await kdigA(sni, 'news.example', '-b', '127.0.0.2')).toBe(BLOCKED);
    // A location key given as the label itself.
    expect(await kdigA(`${LOCATION_KEY}.${SUFFIX}`, 'gambling.example', '-b', '127.0.0.2')).toBe(ALLOWED);
    const m = stack.resolver.metrics;
    expect(m.dot.queries).toBeGreaterThanOrEqual(5);
    expect(m.identifiedBy.deviceKey).toBeGreaterThanOrEqual(3);
    expect(m.identifiedBy.locationKey).toBeGreaterThanOrEqual(1);
  });

  it('falls back to the source address for an unknown key, a name outside the suffix and no server name', async () => {
    const unknown = dotHostName('NoSuchKey_000000000000000000000', SUFFIX)!;
    // From HQ's 127.0.0.1: HQ's default policy (gambling blocked, news allowed).
    expect(await kdigA(unknown, 'gambling.example')).toBe(BLOCKED);
    expect(await kdigA(unknown, 'news.example')).toBe(ALLOWED);
    expect(await kdigA(null, 'gambling.example')).toBe(BLOCKED);
    // The device's label under another suffix names nobody.
    expect(await kdigA(`${dotLabel(DEVICE_KEY)}.dot.other.example`, 'news.example')).toBe(ALLOWED);
    // From an address no location claims: REFUSED (never an open resolver).
    expect(await kdigA(unknown, 'news.example', '-b', '127.0.0.2')).toBe('REFUSED');
    expect(await kdigA(null, 'news.example', '-b', '127.0.0.2')).toBe('REFUSED');
  });

  it('serves a Node TLS client that verifies the chain against the root, pipelined, and logs protocol dot', async () => {
    const sni = dotHostName(DEVICE_KEY, SUFFIX)!;
    // Offering ALPN `dot` (RFC 7858 §3.2 allows it; the server negotiates none and serves it).
    const client = await connectDot(dot.port, sni, ca, '127.0.0.2', ['dot']);
    try {
      expect(client.socket.authorized).toBe(true);
      expect(client.socket.getPeerCertificate().subjectaltname).toBe(`DNS:${sni}`);
      // Several queries before any answer (RFC 7766 §6.2.1.1 pipelining), one connection.
      const answers = await Promise.all([
        client.ask('news.example', 1),
        client.ask('gambling.example', 2),
        client.ask('www.example', 3),
      ]);
      expect(answers).toEqual([BLOCKED, ALLOWED, ALLOWED]);
    } finally {
      client.socket.destroy();
    }
    // A client trusting another root refuses the handshake, which the server counts as failed.
    const failedBefore = stack.resolver.metrics.dot.handshakeFailed;
    const other = await import('@cordon/pki');
    const otherDb = await createTestDatabase('sqlite');
    try {
      const foreign = await other.ensureRootCa(otherDb, Buffer.from('another-deployment-secret-0123456789', 'utf8'));
      await expect(connectDot(dot.port, sni, foreign.certificatePem)).rejects.toThrow(/certificate/i);
      await within(2000, () => stack.resolver.metrics.dot.handshakeFailed === failedBefore + 1);
    } finally {
      await otherDb.close();
    }
    await within(3000, async () => {
      const rows = await handle.db
        .selectFrom('query_log')
        .select(['qname', 'protocol', 'device_id', 'action'])
        .where('protocol', '=', 'dot')
        .where('client_ip', '=', '127.0.0.2')
        .execute();
      return rows.some((r) => r.qname === 'news.example' && r.device_id !== null && r.action === 'blocked');
    });
  });

  it('holds the TCP limits over TLS: per-source cap at accept, idle and slow-message deadlines', async () => {
    const before = stack.resolver.metrics;
    const sni = `${LOCATION_KEY}.${SUFFIX}`;
    const open = [await connectDot(dot.port, sni, ca), await connectDot(dot.port, sni, ca)];
    open.push(await connectDot(dot.port, sni, ca));
    try {
      // The fourth from the same address is destroyed at accept, before any TLS work.
      await expect(connectDot(dot.port, sni, ca)).rejects.toThrow();
      expect(stack.resolver.metrics.dot.rejected).toBe(before.dot.rejected + 1);
      // Refused at accept is not a failed handshake: no TLS work was done for it.
      expect(stack.resolver.metrics.dot.handshakeFailed).toBe(before.dot.handshakeFailed);
      // Another address is served, a client offering another ALPN protocol too.
      const other = await connectDot(dot.port, sni, ca, '127.0.0.4', ['h2']);
      expect(await other.ask('www.example', 9)).toBe(ALLOWED);
      other.socket.destroy();
      // Idle connections (nothing asked) are closed after idleMs (400 ms here).
      await Promise.all(open.map((c) => c.closed));
      expect(stack.resolver.metrics.tcp.idleClosed).toBeGreaterThanOrEqual(before.tcp.idleClosed + 3);
    } finally {
      for (const c of open) c.socket.destroy();
    }
    // A message started and never finished is closed after messageTimeoutMs.
    const drip = await connectDot(dot.port, sni, ca);
    drip.socket.write(frame('www.example', 10).subarray(0, 8));
    await drip.closed;
    expect(stack.resolver.metrics.tcp.deadlineClosed).toBe(before.tcp.deadlineClosed + 1);
    // A frame shorter than a DNS header closes the connection unanswered.
    const bad = await connectDot(dot.port, sni, ca);
    bad.socket.write(Buffer.from([0, 4, 1, 2, 3, 4]));
    await bad.closed;
    expect(stack.resolver.metrics.tcp.malformedClosed).toBe(before.tcp.malformedClosed + 1);
    // A client that does not speak TLS is counted as a failed handshake.
    await new Promise<void>((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port: dot.port }, () => s.write(frame('www.example', 11)));
      s.on('error', () => undefined);
      s.on('close', () => resolve());
    });
    expect(stack.resolver.metrics.dot.handshakeFailed).toBeGreaterThan(before.dot.handshakeFailed);
  });
});
