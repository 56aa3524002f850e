/**
 * `cordon agent`: the reference roaming agent (docs/agent.md). It enrols with the customer's install
 * key, then runs a loopback DNS forwarder that sends every query to Cordon over DNS-over-HTTPS
 * (RFC 8484) at `/dns-query/{device key}` with the logged-in OS user in EDNS(0) option 65074, except
 * the names its device exception sends elsewhere (`ByPass OTG` → the system resolver, `Use Specific
 * Resolver` → that resolver). It heartbeats, takes its configuration from each heartbeat's answer,
 * caches it on disk, and keeps working from the cached configuration while Cordon is unreachable.
 * It imports nothing of the server: it speaks to Cordon over HTTP only.
 */
import dgram from 'node:dgram';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { canonicalIp } from '@cordon/shared';
import { type AgentRule, compileRules, type Route } from './rules.ts';
import { EDNS_USER, fitUdp, readQuestion, servfail, withEdnsOptions } from './wire.ts';

/** The agent's version, reported in heartbeats. */
export const AGENT_VERSION = '0.1.0';

/** Settings of {@link startAgent}. */
export interface AgentOptions {
  /** Cordon's console/API base URL, e.g. `https://cordon.example` (the agent calls `<server>/restapi/agent/*`). */
  server: string;
  /** Cordon's DoH base URL, e.g. `https://cordon.example:8053` (queries go to `<doh>/dns-query/<device key>`). */
  doh: string;
  /** The customer's install key; needed only until the device is enrolled (the device key is then cached). */
  installKey?: string | undefined;
  /** Where the device key and the last configuration are kept (`agent.json`, mode 0600). */
  stateDir: string;
  /** Loopback listen address of the forwarder, UDP and TCP (port 0 picks one). */
  listen: { host: string; port: number };
  /** The resolver `ByPass OTG` names go to; default: the first nameserver of /etc/resolv.conf that is not this agent. */
  systemResolver?: { host: string; port: number } | undefined;
  /** PEM of extra certificate authorities to trust for `server` and `doh` (the deployment root CA). */
  ca?: string | undefined;
  /** The OS user to report; default the logged-in user ({@link currentUser}). */
  user?: string | undefined;
  /** Device name reported at enrolment (default the host name). */
  name?: string | undefined;
  /** Per-query timeout towards Cordon or a resolver, ms (default 3000). */
  timeoutMs?: number;
  /** Heartbeat period before the server states one, ms (default 60,000); the server's `heartbeat_s` wins. */
  heartbeatMs?: number;
  /** Logs one line (default: nothing). */
  log?: (line: string) => void;
}

/** What the agent keeps on disk between runs. */
export interface AgentState {
  deviceId: number;
  customerId: number;
  deviceKey: string;
  /** The last configuration a heartbeat answered (null before the first). */
  config: { policy_id: number | null; rules: AgentRule[]; heartbeat_s: number } | null;
  /** When `config` was received, ISO-8601. */
  savedAt: string | null;
}

/** A running agent. */
export interface RunningAgent {
  /** The forwarder's bound UDP and TCP address. */
  readonly address: AddressInfo;
  /** The current state (device key and cached configuration). */
  readonly state: AgentState;
  /** Counters: queries by route, failures, heartbeats. */
  readonly stats: AgentStats;
  /**
   * Runs one heartbeat now (tests, `SIGHUP`); resolves true when Cordon answered. A refused device
   * key (the device was removed) with an install key at hand enrols again as a new device.
   */
  heartbeat(): Promise<boolean>;
  close(): Promise<void>;
}

/** The agent's counters. */
export interface AgentStats {
  cordon: number;
  system: number;
  resolver: number;
  failed: number;
  heartbeats: number;
  heartbeatFailures: number;
}

/**
 * The logged-in OS user: `SUDO_USER` when run through sudo, else the account the agent runs as.
 * A service running as root on a shared machine should be given `--user` by its launcher (docs/agent.md).
 */
export function currentUser(): string {
  const sudo = process.env.SUDO_USER;
  if (sudo && sudo !== 'root') return sudo;
  try {
    return os.userInfo().username;
  } catch {
    return process.env.USER ?? process.env.USERNAME ?? '';
  }
}

/** The nameservers of /etc/resolv.conf other than `self` (port 53). */
export function systemNameservers(
  self: { host: string; port: number },
  file = '/etc/resolv.conf',
): { host: string; port: number }[] {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .map((l) => /^\s*nameserver\s+(\S+)/.exec(l)?.[1])
    .filter((h): h is string => h !== undefined && net.isIP(h) !== 0)
    .map((host) => ({ host, port: 53 }))
    .filter((s) => !(s.host === self.host && s.port === self.port));
}

function loadState(file: string): AgentState | null {
  try {
    const s = JSON.parse(readFileSync(file, 'utf8')) as AgentState;
    return typeof s.deviceKey === 'string' && s.deviceKey.length > 0 ? s : null;
  } catch {
    return null;
  }
}

function saveState(file: string, state: AgentState): void {
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}

/** A JSON POST; resolves with the status and parsed body. */
function postJson(
  url: URL,
  body: unknown,
  agent: https.Agent | undefined,
  timeoutMs: number,
): Promise<{ status: number; body: unknown }> {
  const data = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': data.length, accept: 'application/json' },
        ...(url.protocol === 'https:' && agent ? { agent } : {}),
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = null;
          try {
            parsed = text ? JSON.parse(text) : null;
          } catch {
            parsed = text;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(data);
  });
}

/**
 * Starts the agent: loads its state from `stateDir`, enrols when it has no device key (retrying
 * until Cordon answers; a refused install key is fatal), starts the forwarder, and heartbeats.
 * @throws Error when the install key is refused, when there is neither a cached device key nor an
 *   install key, or when the listen address cannot be bound
 */
export async function startAgent(opts: AgentOptions): Promise<RunningAgent> {
  const log = opts.log ?? (() => undefined);
  const timeoutMs = opts.timeoutMs ?? 3000;
  mkdirSync(opts.stateDir, { recursive: true, mode: 0o700 });
  const stateFile = join(opts.stateDir, 'agent.json');
  const tlsAgent = new https.Agent({ keepAlive: true, maxSockets: 16, ...(opts.ca ? { ca: opts.ca } : {}) });
  const api = (path: string) => new URL(`/restapi${path}`, opts.server);
  const user = opts.user ?? currentUser();
  const osType = process.platform === 'win32' ? 'windows' : process.platform === 'darwin' ? 'macos' : process.platform;

  let state = loadState(stateFile);
  if (state === null) {
    if (!opts.installKey) throw new Error('not enrolled: give the install key (--install-key) for the first start');
    state = await enrol(opts.installKey);
    saveState(stateFile, state);
    log(`enrolled as device ${state.deviceId}`);
  } else {
    log(
      `device ${state.deviceId}: ${state.config ? `cached configuration of ${state.savedAt}` : 'no configuration yet'}`,
    );
  }
  const stats: AgentStats = { cordon: 0, system: 0, resolver: 0, failed: 0, heartbeats: 0, heartbeatFailures: 0 };
  let route = compileRules(state.config?.rules ?? []);

  async function enrol(installKey: string): Promise<AgentState> {
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await postJson(
          api('/agent/enrol'),
          { install_key: installKey, name: opts.name ?? os.hostname(), os_type: osType, version: AGENT_VERSION },
          tlsAgent,
          timeoutMs,
        );
        if (res.status === 201) {
          const b = res.body as { device_id: number; device_key: string; customer_id: number };
          return {
            deviceId: b.device_id,
            customerId: b.customer_id,
            deviceKey: b.device_key,
            config: null,
            savedAt: null,
          };
        }
        // 429: enrolments of this install key are rate-limited for now (docs/security.md "Identity claims"): retry.
        if (res.status >= 400 && res.status < 500 && res.status !== 429) {
          throw new EnrolRefused(`install key refused (HTTP ${res.status})`);
        }
        throw new Error(`HTTP ${res.status}`);
      } catch (err) {
        if (err instanceof EnrolRefused) throw err;
        const wait = Math.min(60_000, 1000 * 2 ** attempt);
        log(`enrolment failed (${(err as Error).message}); retrying in ${wait / 1000} s`);
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  async function heartbeat(mayReenrol = true): Promise<boolean> {
    const current = state!;
    try {
      const res = await postJson(
        api('/agent/heartbeat'),
        { device_key: current.deviceKey, version: AGENT_VERSION, os_type: osType, ...(user ? { user } : {}) },
        tlsAgent,
        timeoutMs,
      );
      if (res.status === 401 && mayReenrol && opts.installKey) {
        // The device was removed in the console (its key revoked): enrol again as a new device.
        log('device key refused (the device was removed); enrolling again with the install key');
        state = await enrol(opts.installKey);
        saveState(stateFile, state);
        route = compileRules([]);
        log(`enrolled as device ${state.deviceId}`);
        return heartbeat(false);
      }
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
      const b = res.body as {
        heartbeat_s: number;
        config: { policy_id: number | null; rules: AgentRule[] };
      };
      current.config = { policy_id: b.config.policy_id, rules: b.config.rules, heartbeat_s: b.heartbeat_s };
      current.savedAt = new Date().toISOString();
      route = compileRules(current.config.rules);
      saveState(stateFile, current);
      stats.heartbeats++;
      schedule(b.heartbeat_s * 1000);
      return true;
    } catch (err) {
      stats.heartbeatFailures++;
      log(`heartbeat failed (${(err as Error).message}); keeping the configuration of ${current.savedAt ?? 'never'}`);
      schedule(Math.min(opts.heartbeatMs ?? 60_000, 30_000));
      return false;
    }
  }
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  function schedule(ms: number): void {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void heartbeat(), Math.max(1000, ms));
    timer.unref();
  }

  const systemResolver = opts.systemResolver ?? systemNameservers(opts.listen)[0] ?? null;
  const userOption = user ? [{ code: EDNS_USER, value: Buffer.from(user, 'utf8').subarray(0, 128) }] : [];

  /** Sends `query` over DoH to Cordon with the device key in the path and the user option. */
  function viaDoh(query: Buffer): Promise<Buffer> {
    const body = withEdnsOptions(query, userOption);
    const url = new URL(`/dns-query/${state!.deviceKey}`, opts.doh);
    return new Promise((resolve, reject) => {
      const req = https.request(
        url,
        {
          method: 'POST',
          agent: tlsAgent,
          timeout: timeoutMs,
          headers: {
            'content-type': 'application/dns-message',
            accept: 'application/dns-message',
            'content-length': body.length,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`DoH HTTP ${res.statusCode}`)),
          );
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error('DoH timeout')));
      req.on('error', reject);
      req.end(body);
    });
  }

  /** Resolves `query` through `r`, over UDP or TCP as it came in. */
  function answer(query: Buffer, r: Route, tcp: boolean): Promise<Buffer> {
    if (r.kind === 'cordon') {
      stats.cordon++;
      return viaDoh(query);
    }
    const target = r.kind === 'system' ? systemResolver : { host: r.host, port: r.port };
    if (r.kind === 'system') stats.system++;
    else stats.resolver++;
    if (target === null) return Promise.reject(new Error('no system resolver'));
    return tcp ? plainTcp(query, target, timeoutMs) : plainUdp(query, target, timeoutMs);
  }

  async function handle(query: Buffer, clientIp: string, tcp: boolean): Promise<Buffer | null> {
    const q = readQuestion(query);
    if (q === null) return null;
    try {
      return await answer(query, route(q.qname, canonicalIp(clientIp)), tcp);
    } catch (err) {
      stats.failed++;
      log(`${q.qname}: ${(err as Error).message}`);
      return servfail(query);
    }
  }

  const onTcp = (socket: net.Socket): void => {
    let pending = Buffer.alloc(0);
    socket.setTimeout(10_000, () => socket.destroy());
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2) {
        const len = pending.readUInt16BE(0);
        if (pending.length < 2 + len) break;
        const msg = pending.subarray(2, 2 + len);
        pending = pending.subarray(2 + len);
        void handle(Buffer.from(msg), socket.remoteAddress ?? '', true).then((out) => {
          if (!out || socket.destroyed) return;
          const head = Buffer.alloc(2);
          head.writeUInt16BE(out.length);
          socket.write(Buffer.concat([head, out]));
        });
      }
    });
  };
  let udp: dgram.Socket;
  let tcpServer: net.Server;
  for (let attempt = 1; ; attempt++) {
    udp = await bindUdp(opts.listen, (msg, rinfo, socket) => {
      void handle(msg, rinfo.address, false).then((out) => {
        if (out) socket.send(fitUdp(msg, out), rinfo.port, rinfo.address);
      });
    });
    tcpServer = net.createServer(onTcp);
    try {
      await listenTcp(tcpServer, udp.address().port, opts.listen.host);
      break;
    } catch (err) {
      udp.close();
      // With port 0 the free UDP port may be some TCP client's ephemeral port: pick another.
      const taken = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (!(taken && opts.listen.port === 0 && attempt < 5)) throw err;
    }
  }
  const address = udp.address();
  log(
    `forwarding DNS on ${opts.listen.host}:${address.port} to ${opts.doh} as device ${state.deviceId}${user ? ` (user ${user})` : ''}; system resolver ${systemResolver ? `${systemResolver.host}:${systemResolver.port}` : 'none'}`,
  );
  // The first heartbeat reports the user and fetches the configuration; failures keep the cached one.
  void heartbeat();

  return {
    address,
    get state() {
      return state!;
    },
    stats,
    heartbeat,
    close: async () => {
      if (closed) return;
      closed = true;
      if (timer) clearTimeout(timer);
      tlsAgent.destroy();
      await Promise.all([
        new Promise<void>((r) => udp.close(() => r())),
        new Promise<void>((r) => tcpServer.close(() => r())),
      ]);
    },
  };
}

class EnrolRefused extends Error {}

/** One query to `target` over UDP; the answer must carry the query's id. */
function plainUdp(query: Buffer, target: { host: string; port: number }, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket(net.isIPv6(target.host) ? 'udp6' : 'udp4');
    const done = (err: Error | null, msg?: Buffer) => {
      clearTimeout(t);
      socket.close();
      if (err) reject(err);
      else resolve(msg!);
    };
    const t = setTimeout(() => done(new Error(`no answer from ${target.host}:${target.port}`)), timeoutMs);
    socket.on('message', (msg) => {
      if (msg.length >= 2 && msg.readUInt16BE(0) === query.readUInt16BE(0)) done(null, msg);
    });
    socket.on('error', (err) => done(err));
    socket.send(query, target.port, target.host);
  });
}

/** One query to `target` over TCP (RFC 1035 §4.2.2 length prefix). */
function plainTcp(query: Buffer, target: { host: string; port: number }, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(target.port, target.host);
    let buf = Buffer.alloc(0);
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer from ${target.host}:${target.port}`)));
    socket.on('connect', () => {
      const head = Buffer.alloc(2);
      head.writeUInt16BE(query.length);
      socket.write(Buffer.concat([head, query]));
    });
    socket.on('data', (c: Buffer) => {
      buf = Buffer.concat([buf, c]);
      if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        resolve(buf.subarray(2, 2 + buf.readUInt16BE(0)));
        socket.destroy();
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error('connection closed')));
  });
}

/** Binds a UDP socket on `listen`; rejects with the bind error (`EADDRINUSE`…). */
function bindUdp(
  listen: { host: string; port: number },
  onMessage: (msg: Buffer, rinfo: dgram.RemoteInfo, socket: dgram.Socket) => void,
): Promise<dgram.Socket> {
  const udp = dgram.createSocket(net.isIPv6(listen.host) ? 'udp6' : 'udp4');
  udp.on('message', (msg, rinfo) => onMessage(msg, rinfo, udp));
  return new Promise((resolve, reject) => {
    udp.once('error', reject);
    udp.bind(listen.port, listen.host, () => {
      udp.off('error', reject);
      resolve(udp);
    });
  });
}

/** Listens on TCP `host:port`; rejects with the listen error (`EADDRINUSE`…). */
function listenTcp(server: net.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
