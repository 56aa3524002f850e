/**
 * The native modules' own tests, on loopback: batches received and answered, the edge cases
 * (an empty answer set, an oversize datagram, answer lengths out of range, a closed socket, detached
 * buffers) and argument checks. `test/sanitize.sh` runs this file against a build with
 * AddressSanitizer and UndefinedBehaviorSanitizer (UDP_BATCH_ADDON_DIR names that build's directory;
 * it must load then). Without a compiler at install the modules are absent and the tests skip, as
 * the resolver's own do.
 */
import { execFileSync } from 'node:child_process';
import dgram from 'node:dgram';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SchedIdleBinding, UdpBatchBinding, UdpBatchHandle } from '../src/index.ts';

const ADDR_BYTES = 20;
const requireNative = createRequire(import.meta.url);
const dir = process.env.UDP_BATCH_ADDON_DIR ?? path.join(import.meta.dirname, '../build/Release');

/** A module of `dir`: required to load when UDP_BATCH_ADDON_DIR names the build under test. */
function load<T>(name: string): T | null {
  try {
    return requireNative(path.join(dir, `${name}.node`)) as T;
  } catch (err) {
    if (process.env.UDP_BATCH_ADDON_DIR) throw err;
    return null;
  }
}

const udp = load<UdpBatchBinding>('udp_batch');
const sched = load<SchedIdleBinding>('sched_idle');
const built = udp !== null;

/** One socket's arenas: `batch` datagrams of `inSlot` bytes in, `outSlot` bytes out. */
function arenas(batch: number, inSlot = 512, outSlot = 256) {
  return {
    inArena: new Uint8Array(batch * inSlot),
    outArena: new Uint8Array(batch * outSlot),
    lens: new Int32Array(batch * 2),
    addrs: new Uint8Array(batch * ADDR_BYTES),
    inSlot,
    outSlot,
  };
}

type Arenas = ReturnType<typeof arenas>;
const open: UdpBatchHandle[] = [];
const clients: dgram.Socket[] = [];

function openSocket(a: Arenas, onBatch: (count: number) => void, host = '127.0.0.1'): UdpBatchHandle {
  const h = udp!.open(host, 0, 0, false, a.inArena, a.outArena, a.inSlot, a.outSlot, a.lens, a.addrs, onBatch);
  open.push(h);
  return h;
}

/** A loopback client that keeps every datagram it receives, in order. */
async function client(): Promise<{ socket: dgram.Socket; received: Buffer[]; next: (n: number) => Promise<Buffer[]> }> {
  const socket = dgram.createSocket('udp4');
  clients.push(socket);
  const received: Buffer[] = [];
  let waiter: { n: number; resolve: (b: Buffer[]) => void } | null = null;
  socket.on('message', (m) => {
    received.push(m);
    if (waiter && received.length >= waiter.n) waiter.resolve(received.slice(0, waiter.n));
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    socket,
    received,
    // Resolves once n datagrams in all have arrived.
    next: (n) =>
      new Promise((resolve) => {
        if (received.length >= n) resolve(received.slice(0, n));
        else waiter = { n, resolve };
      }),
  };
}

const send = (s: dgram.Socket, port: number, payload: Uint8Array) =>
  new Promise<void>((resolve, reject) => s.send(payload, port, '127.0.0.1', (err) => (err ? reject(err) : resolve())));

/** Runs `code` in a child node with the module at argv[1]; its stdout, trimmed. */
function inChild(code: string): string {
  return execFileSync(process.execPath, ['-e', code, path.join(dir, 'udp_batch.node')], {
    encoding: 'utf8',
    env: process.env,
  }).trim();
}

afterEach(() => {
  for (const h of open.splice(0)) udp!.close(h);
  for (const c of clients.splice(0)) c.close();
});

describe.skipIf(!built)('udp-batch on loopback', () => {
  it('receives datagrams in batches and answers each in place, to its source', async () => {
    const a = arenas(8);
    const sources: number[][] = [];
    let batches = 0;
    const h = openSocket(a, (count) => {
      batches++;
      for (let i = 0; i < count; i++) {
        const len = a.lens[i]!;
        const q = a.inArena.subarray(i * a.inSlot, i * a.inSlot + len);
        sources.push([...a.addrs.subarray(i * ADDR_BYTES, i * ADDR_BYTES + 8)]);
        a.outArena.set([0x41, ...q], i * a.outSlot);
        a.lens[8 + i] = len + 1;
      }
    });
    const { port } = udp!.info(h);
    const c = await client();
    for (let i = 0; i < 20; i++) await send(c.socket, port, Buffer.from(`q${i}`));
    const answers = await c.next(20);
    expect(answers.map(String)).toEqual(Array.from({ length: 20 }, (_, i) => `Aq${i}`));
    const cport = c.socket.address().port;
    // Family 4, port big-endian, 127.0.0.1.
    expect(sources[0]).toEqual([4, 0, cport >> 8, cport & 255, 127, 0, 0, 1]);
    expect(udp!.info(h)).toMatchObject({ family: 4, received: 20, sent: 20, sendErrors: 0, truncated: 0, batches });
    expect(batches).toBeGreaterThanOrEqual(3);
  });

  it('gives an IPv4 client of a dual-stack socket as family 4', async () => {
    const a = arenas(4);
    let record: number[] = [];
    const h = openSocket(
      a,
      (count) => {
        record = [...a.addrs.subarray(0, 8)];
        for (let i = 0; i < count; i++) {
          a.outArena[i * a.outSlot] = 1;
          a.lens[4 + i] = 1;
        }
      },
      '::',
    );
    const c = await client();
    await send(c.socket, udp!.info(h).port, Buffer.from('x'));
    await c.next(1);
    expect(udp!.info(h).family).toBe(6);
    expect(record.slice(0, 1).concat(record.slice(4))).toEqual([4, 127, 0, 0, 1]);
  });

  it('sends nothing for an empty answer set, a length of 0, a negative one or one longer than the slot', async () => {
    const a = arenas(4, 512, 16);
    let seen = 0;
    // a: no answer written (the addon zeroed its length); b: 0; c: negative; d: longer than the slot; e: answered.
    const written: Record<string, number> = { b: 0, c: -5, d: 17, e: 3 };
    const h = openSocket(a, (count) => {
      for (let i = 0; i < count; i++) {
        const q = String.fromCharCode(a.inArena[i * a.inSlot]!);
        seen++;
        a.outArena.set(Buffer.from(`ok${q}`), i * a.outSlot);
        if (q in written) a.lens[4 + i] = written[q]!;
      }
    });
    const c = await client();
    const port = udp!.info(h).port;
    for (const q of ['a', 'b', 'c', 'd', 'e']) await send(c.socket, port, Buffer.from(q));
    // Loopback keeps the order: the one answer is e's, and nothing came before it.
    expect((await c.next(1)).map(String)).toEqual(['oke']);
    expect(seen).toBe(5);
    expect(udp!.info(h)).toMatchObject({ received: 5, sent: 1, sendErrors: 0 });
  });

  it('marks a datagram longer than its slot as truncated (-1) and goes on', async () => {
    const a = arenas(4, 64, 64);
    const lens: number[] = [];
    const h = openSocket(a, (count) => {
      for (let i = 0; i < count; i++) {
        lens.push(a.lens[i]!);
        a.outArena[i * a.outSlot] = 7;
        a.lens[4 + i] = a.lens[i]! < 0 ? 0 : 1;
      }
    });
    const c = await client();
    const port = udp!.info(h).port;
    await send(c.socket, port, new Uint8Array(65));
    await send(c.socket, port, new Uint8Array(64));
    await c.next(1);
    expect(lens).toEqual([-1, 64]);
    expect(udp!.info(h)).toMatchObject({ received: 2, truncated: 1, sent: 1 });
  });

  it('sends a later answer with sendTo, and refuses what it cannot send with an errno', async () => {
    const a = arenas(4);
    let record = new Uint8Array(0);
    let got!: () => void;
    const received = new Promise<void>((resolve) => {
      got = resolve;
    });
    const h = openSocket(a, () => {
      record = a.addrs.slice(0, ADDR_BYTES);
      got();
    });
    const c = await client();
    await send(c.socket, udp!.info(h).port, Buffer.from('q'));
    await received;
    expect(udp!.sendTo(h, Buffer.from('later'), record)).toBe(0);
    expect((await c.next(1)).map(String)).toEqual(['later']);
    const v6 = Uint8Array.from(record);
    v6[0] = 6;
    const none = Uint8Array.from(record);
    none[0] = 9;
    // An IPv4 socket cannot reach an IPv6 record; family 9 is no family.
    expect(udp!.sendTo(h, Buffer.from('x'), v6)).toBe(97); // EAFNOSUPPORT
    expect(udp!.sendTo(h, Buffer.from('x'), none)).toBe(97);
    expect(udp!.sendTo(h, new Uint8Array(65_528), record)).toBe(90); // EMSGSIZE
    expect(() => udp!.sendTo(h, Buffer.from('x'), record.subarray(0, 19))).toThrow(TypeError);
    expect(udp!.info(h)).toMatchObject({ sent: 1 });
  });

  it('closes: sendTo answers EBADF, info reports no port, a second close does nothing', async () => {
    const a = arenas(2);
    const h = openSocket(a, () => undefined);
    expect(udp!.info(h).port).toBeGreaterThan(0);
    udp!.close(h);
    udp!.close(h);
    const record = new Uint8Array(ADDR_BYTES);
    record.set([4, 0, 0, 53, 127, 0, 0, 1]);
    expect(udp!.sendTo(h, Buffer.from('x'), record)).toBe(9); // EBADF
    expect(udp!.info(h)).toMatchObject({ port: 0, recvBufferBytes: 0 });
    expect(() => udp!.close({} as UdpBatchHandle)).toThrow(TypeError);
  });

  it('stops at once when closed from inside the batch callback: that batch is not answered', async () => {
    const a = arenas(4);
    let calls = 0;
    let called!: () => void;
    const closed = new Promise<void>((resolve) => {
      called = resolve;
    });
    const h = openSocket(a, (count) => {
      calls++;
      for (let i = 0; i < count; i++) a.lens[4 + i] = 1;
      udp!.close(h);
      called();
    });
    const c = await client();
    await send(c.socket, udp!.info(h).port, Buffer.from('q'));
    await closed;
    // An answer of that batch would have left before the callback returned, so before this marker's.
    const b = arenas(1);
    const h2 = openSocket(b, (count) => {
      for (let i = 0; i < count; i++) {
        b.outArena[i * b.outSlot] = 0x5a;
        b.lens[1 + i] = 1;
      }
    });
    await send(c.socket, udp!.info(h2).port, Buffer.from('z'));
    expect((await c.next(1)).map(String)).toEqual(['Z']);
    expect(calls).toBe(1);
    expect(udp!.info(h)).toMatchObject({ port: 0, sent: 0 });
  });
});

describe.skipIf(!built)('udp-batch refuses bad arguments', () => {
  const a = arenas(4);
  const args = (over: Record<number, unknown>) => {
    const list: unknown[] = [
      '127.0.0.1',
      0,
      0,
      false,
      a.inArena,
      a.outArena,
      a.inSlot,
      a.outSlot,
      a.lens,
      a.addrs,
      () => {},
    ];
    for (const [i, v] of Object.entries(over)) list[Number(i)] = v;
    return list as Parameters<UdpBatchBinding['open']>;
  };
  const detached = () => {
    const u = new Uint8Array(4096);
    structuredClone(u.buffer, { transfer: [u.buffer] });
    return u;
  };

  it.each([
    ['a missing argument', null],
    ['a port out of range', { 1: 70_000 }],
    ['a negative receive buffer', { 2: -1 }],
    ['an arena that is no Uint8Array', { 4: new Uint16Array(1024) }],
    ['a detached arena', { 5: detached() }],
    [
      'a detached lens array',
      {
        8: (() => {
          const l = new Int32Array(8);
          structuredClone(l.buffer, { transfer: [l.buffer] });
          return l;
        })(),
      },
    ],
    ['a slot of 0 bytes', { 6: 0 }],
    ['a slot beyond 64 KiB', { 7: 65_537 }],
    ['an empty lens array', { 8: new Int32Array(0) }],
    ['a batch beyond 1024', { 8: new Int32Array(2050) }],
    ['arenas shorter than the batch', { 9: new Uint8Array(79) }],
    ['a host longer than an address', { 0: `${'1'.repeat(70)}` }],
    ['no callback', { 10: 1 }],
  ])('%s: TypeError, no socket', (_what, over) => {
    const list = over === null ? args({}).slice(0, 10) : args(over);
    expect(() => (udp!.open as (...a: unknown[]) => unknown)(...list)).toThrow(TypeError);
  });

  it('a host that is no IP address: EINVAL', () => {
    expect(() => udp!.open(...args({ 0: 'localhost' }))).toThrow(expect.objectContaining({ code: 'EINVAL' }));
  });

  it('a detached datagram or address record in sendTo: TypeError', () => {
    const h = openSocket(arenas(1), () => undefined);
    const record = new Uint8Array(ADDR_BYTES);
    record.set([4, 0, 0, 53, 127, 0, 0, 1]);
    expect(() => udp!.sendTo(h, detached(), record)).toThrow(TypeError);
    const r = Uint8Array.from(record);
    structuredClone(r.buffer, { transfer: [r.buffer] });
    expect(() => udp!.sendTo(h, Buffer.from('x'), r)).toThrow(TypeError);
  });
});

// A detached arena cannot be refused at the call that detaches it: the addon finds it before its
// next use, closes the socket and raises an uncaught error (in a child, whose process it is).
describe.skipIf(!built)('udp-batch with an arena detached after open', () => {
  const child = (when: 'before' | 'inside') => `
    const b = require(process.argv[1]);
    const dgram = require('node:dgram');
    const out = new Uint8Array(4 * 256);
    const inArena = new Uint8Array(4 * 512);
    const lens = new Int32Array(8);
    let h;
    process.on('uncaughtException', (e) => {
      console.log(e.code, b.info(h).port, out.byteLength, inArena.byteLength);
      process.exit(0);
    });
    h = b.open('127.0.0.1', 0, 0, false, inArena, out, 512, 256, lens, new Uint8Array(80), (n) => {
      for (let i = 0; i < n; i++) lens[4 + i] = 1;
      ${when === 'inside' ? 'structuredClone(out.buffer, { transfer: [out.buffer] });' : ''}
    });
    ${when === 'before' ? 'structuredClone(inArena.buffer, { transfer: [inArena.buffer] });' : ''}
    const c = dgram.createSocket('udp4');
    c.send(Buffer.from('q'), b.info(h).port, '127.0.0.1', () => c.close());
  `;

  it('detached inside the callback: its answers are not read, the socket closes, ERR_UDP_BATCH_ARENA', () => {
    expect(inChild(child('inside'))).toBe('ERR_UDP_BATCH_ARENA 0 0 2048');
  });

  it('detached between batches: nothing is received into it, the socket closes, ERR_UDP_BATCH_ARENA', () => {
    expect(inChild(child('before'))).toBe('ERR_UDP_BATCH_ARENA 0 1024 0');
  });
});

describe.skipIf(sched === null)('sched_idle', () => {
  it('opens the idle gate once a core was free, from one gate thread at SCHED_IDLE, and refuses a bad timeout', () => {
    expect(() => sched!.waitForIdleCore(-1)).toThrow(TypeError);
    expect(() => sched!.waitForIdleCore(Number.NaN)).toThrow(TypeError);
    expect(() => sched!.waitForIdleCore(0.5)).toThrow(TypeError);
    // Idle cores answer at once; a busy test machine may leave the gate thread waiting a while.
    const answers = [0, 1, 2].map(() => sched!.waitForIdleCore(30_000));
    expect(answers).toEqual([1, 1, 1]);
    expect(idleThreadsOfThisProcess()).toHaveLength(1);
  });

  it('stays loaded after the worker threads that used it end, so that its gate thread never runs unmapped code', () => {
    // In a process of its own where only worker threads load it (this one holds it from its main thread).
    const script = `
      const { Worker } = require('node:worker_threads');
      const { readFileSync } = require('node:fs');
      const file = process.argv[1];
      (async () => {
        const out = [];
        for (let i = 0; i < 2; i++) {
          const w = new Worker("const { parentPort, workerData } = require('node:worker_threads');" +
            "parentPort.postMessage(require(workerData).waitForIdleCore(30000));", { eval: true, workerData: file });
          out.push(await new Promise((r) => w.once('message', r)));
          await new Promise((r) => w.once('exit', r));
          out.push(readFileSync('/proc/self/maps', 'utf8').includes(file) ? 'mapped' : 'unmapped');
        }
        console.log(out.join(' '));
      })();`;
    const file = path.join(dir, 'sched_idle.node');
    const out = execFileSync(process.execPath, ['-e', script, file], { encoding: 'utf8' }).trim();
    expect(out).toBe('1 mapped 1 mapped');
  });
});

/** The threads of this process at SCHED_IDLE (policy 5 in /proc/self/task/<tid>/sched). */
function idleThreadsOfThisProcess(): string[] {
  const ids: string[] = [];
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      if (/^policy\s*:\s*5$/m.test(readFileSync(`/proc/self/task/${tid}/sched`, 'utf8'))) ids.push(tid);
    } catch {
      // the thread ended meanwhile
    }
  }
  return ids;
}
