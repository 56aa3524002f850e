import type { AddressInfo } from 'node:net';
import { ADDR_BYTES, type UdpBatchBinding } from '@cordon/udp-batch';
import ipaddr from 'ipaddr.js';
import type { Logger } from 'pino';
import { batchReceiveTime, responseSlot } from '../dns/message.ts';

/**
 * One datagram's work (transport/udp.ts): the response-rate limit, then the exchange. Returns
 * what to send back (null: nothing), or a promise of it.
 */
export type DatagramHandler = (msg: Buffer, clientIp: string) => Buffer | null | Promise<Buffer | null>;

/** Datagrams received per `recvmmsg` and answered per `sendmmsg`. */
export const UDP_BATCH = 64;
/** Receive slot, bytes: a longer datagram is dropped (MSG_TRUNC), see `MAX_UDP_QUERY` in transport/udp.ts. */
const IN_SLOT = 4096;
/**
 * Answer slot, bytes: UDP answers are at most 1232 bytes (`MAX_UDP_PAYLOAD`, dns/message.ts) except
 * when a client's EDNS size allows more; a longer one is sent alone through `sendTo`.
 */
const OUT_SLOT = 2048;
/** Entries of the IPv4 source-address → string cache before it is emptied (bounded memory). */
const IP_CACHE_MAX = 65_536;

/** The batched server as transport/udp.ts wraps it. */
export interface BatchedServer {
  readonly address: AddressInfo;
  readonly backend: 'batch';
  readonly recvBufferBytes: number;
  stats(): { batches: number; sendErrors: number };
  close(): Promise<void>;
}

/**
 * Serves UDP through `@cordon/udp-batch` (docs/decisions.md "Batched UDP"): the addon drains the
 * socket with `recvmmsg` into one receive arena and calls back once per batch; each datagram is
 * copied out of the arena (an answer may come later, after the arena was reused) and handled;
 * synchronous answers are written into the answer arena — in place, through `responseSlot`
 * (dns/message.ts), or copied there — and leave in one `sendmmsg` when the callback returns; later answers, and ones longer than a slot, go out alone through `sendTo`.
 * Source addresses arrive canonical (an IPv4-mapped IPv6 source as IPv4, like `canonicalIp`).
 * @throws (rejects) Error with the bind's `code` (`EADDRINUSE`…) when the address cannot be bound
 */
export function startBatched(
  binding: UdpBatchBinding,
  host: string,
  port: number,
  handle: DatagramHandler,
  /** Called for each datagram longer than a slot (dropped unread). */
  oversized: () => void,
  logger: Logger,
  recvBufferBytes: number,
  reusePort: boolean,
): Promise<BatchedServer> {
  const inArena = Buffer.allocUnsafeSlow(UDP_BATCH * IN_SLOT);
  const outArena = Buffer.allocUnsafeSlow(UDP_BATCH * OUT_SLOT);
  const lens = new Int32Array(UDP_BATCH * 2);
  const addrs = Buffer.allocUnsafeSlow(UDP_BATCH * ADDR_BYTES);
  const v4Names = new Map<number, string>();
  let lastV4 = -1;
  let lastV4Name: string | null = null;

  const clientIpOf = (slot: number): string => {
    const off = slot * ADDR_BYTES;
    if (addrs[off] === 4) {
      const n = addrs.readUInt32BE(off + 4);
      // Datagrams of a batch mostly come from one client: no map lookup for a repeat.
      if (n === lastV4 && lastV4Name !== null) return lastV4Name;
      let name = v4Names.get(n);
      if (name === undefined) {
        name = `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
        if (v4Names.size >= IP_CACHE_MAX) v4Names.clear();
        v4Names.set(n, name);
      }
      lastV4 = n;
      lastV4Name = name;
      return name;
    }
    // The compressed form (RFC 5952), as node:dgram reports IPv6 sources.
    return ipaddr.fromByteArray([...addrs.subarray(off + 4, off + 20)]).toString();
  };

  let socket: ReturnType<UdpBatchBinding['open']> | null = null;
  const sendLater = (wire: Buffer, addr: Buffer) => {
    if (socket !== null) binding.sendTo(socket, wire, addr);
  };

  const onBatch = (count: number) => {
    batchReceiveTime.wall = Date.now();
    batchReceiveTime.mono = performance.now();
    batchReceiveTime.set = true;
    try {
      answerBatch(count);
    } finally {
      batchReceiveTime.set = false;
    }
  };

  const answerBatch = (count: number) => {
    for (let i = 0; i < count; i++) {
      const len = lens[i] as number;
      if (len < 0) {
        oversized();
        continue;
      }
      // A copy out of the arena (a later answer still reads its query); byte by byte, because
      // Buffer#copy of part of a source allocates a view of it first.
      const msg = Buffer.allocUnsafe(len);
      const from = i * IN_SLOT;
      for (let b = 0; b < len; b++) msg[b] = inArena[from + b] as number;
      let out: ReturnType<DatagramHandler>;
      // A synchronous answer is written straight into its slot of the answer arena (no Buffer of its own).
      const slotAt = i * OUT_SLOT;
      responseSlot.arena = outArena;
      responseSlot.offset = slotAt;
      responseSlot.capacity = OUT_SLOT;
      responseSlot.taken = 0;
      try {
        out = handle(msg, clientIpOf(i));
      } catch (err) {
        logger.error({ err }, 'udp exchange failed');
        continue;
      } finally {
        responseSlot.arena = null;
      }
      if (out === null) continue;
      if (!(out instanceof Promise)) {
        if (out.buffer === outArena.buffer && out.byteOffset === slotAt) {
          lens[UDP_BATCH + i] = out.length;
        } else if (out.length <= OUT_SLOT) {
          outArena.set(out, i * OUT_SLOT);
          lens[UDP_BATCH + i] = out.length;
        } else {
          sendLater(out, addrs.subarray(i * ADDR_BYTES, (i + 1) * ADDR_BYTES));
        }
        continue;
      }
      // The arena's record is reused by the next batch: keep a copy for the answer's send.
      const addr = Buffer.from(addrs.subarray(i * ADDR_BYTES, (i + 1) * ADDR_BYTES));
      // So is the answer slot: a response built in it before the handler went async is sent from a copy.
      const taken = responseSlot.taken;
      const lent = taken > 0 ? Buffer.from(outArena.subarray(slotAt, slotAt + taken)) : null;
      out.then(
        (wire) => {
          if (!wire) return;
          const inSlot = lent !== null && wire.buffer === outArena.buffer && wire.byteOffset === slotAt;
          sendLater(inSlot ? lent : wire, addr);
        },
        (err: unknown) => logger.error({ err }, 'udp exchange failed'),
      );
    }
  };

  try {
    socket = binding.open(
      host,
      port,
      recvBufferBytes,
      reusePort,
      inArena,
      outArena,
      IN_SLOT,
      OUT_SLOT,
      lens,
      addrs,
      onBatch,
    );
  } catch (err) {
    return Promise.reject(err);
  }
  const opened = socket;
  const info = binding.info(opened);
  let last = { batches: 0, sendErrors: 0 };
  return Promise.resolve({
    address: { address: host, family: info.family === 6 ? 'IPv6' : 'IPv4', port: info.port },
    backend: 'batch',
    recvBufferBytes: info.recvBufferBytes,
    stats: () => {
      if (socket !== null) {
        const now = binding.info(opened);
        last = { batches: now.batches, sendErrors: now.sendErrors };
      }
      return last;
    },
    close: async () => {
      if (socket === null) return;
      last = { batches: binding.info(opened).batches, sendErrors: binding.info(opened).sendErrors };
      socket = null;
      binding.close(opened);
    },
  });
}
