/**
 * A loopback TCP proxy to PostgreSQL for outage tests (issue 30; docs/operations.md "When the database
 * goes away"): `cut()` destroys every proxied socket and refuses new connections (the port closes),
 * `restore()` listens again on the same port.
 */
import net from 'node:net';

/** A running proxy: its port, and the switch. */
export interface PgProxy {
  readonly port: number;
  /** Destroys every connection and closes the port (connects are refused) until {@link restore}. */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port. */
  restore(): Promise<void>;
  /** Same as {@link cut}: the end of the test. */
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 (a free port) to `target`. */
export async function startPgProxy(target: { host: string; port: number }): Promise<PgProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  let port = 0;
  const open = () =>
    new Promise<void>((resolve, reject) => {
      const s = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        sockets.add(client);
        sockets.add(upstream);
        const end = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        for (const sock of [client, upstream]) {
          sock.on('error', end);
          sock.on('close', end);
        }
        client.pipe(upstream).pipe(client);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as net.AddressInfo).port;
        server = s;
        resolve();
      });
    });
  const cut = async () => {
    const s = server;
    server = null;
    if (!s) return;
    const closed = new Promise<void>((resolve) => s.close(() => resolve()));
    for (const sock of sockets) sock.destroy();
    await closed;
  };
  await open();
  return {
    get port() {
      return port;
    },
    cut,
    restore: open,
    close: cut,
  };
}

/** `url` (a postgres:// URL) pointed at the proxy's port, with `application_name` set so a test can terminate its own connections only. */
export function throughProxy(url: string, proxy: PgProxy, applicationName?: string): string {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(proxy.port);
  if (applicationName) u.searchParams.set('application_name', applicationName);
  return u.toString();
}

/** `{ host, port }` of a postgres:// URL (port 5432 when none). */
export function pgTarget(url: string): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port || 5432) };
}
