/**
 * Where `/metrics`, `/healthz` and `/readyz` are served (docs/operations.md "Monitoring"): on the API's
 * own listener for a process with the `api` role, else on `--metrics-addr`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Readiness } from './health.ts';
import type { CordonMetrics } from './metrics.ts';

/** What the three endpoints answer from. */
export interface OpsEndpoints {
  metrics: CordonMetrics;
  readiness: () => Promise<Readiness>;
  roles: readonly string[];
}

/** The body of `/healthz`: the process is alive (its event loop turns). */
function health(roles: readonly string[]) {
  return { status: 'ok', roles, uptime_seconds: Math.round(process.uptime()) };
}

/** Registers the three routes on the API's Fastify instance (before it listens); not under `/restapi`, no token. */
export function registerOpsRoutes(app: FastifyInstance, ops: OpsEndpoints): void {
  const hidden = { schema: { hide: true } };
  app.get('/healthz', hidden, async (_req, reply) => reply.header('cache-control', 'no-store').send(health(ops.roles)));
  app.get('/readyz', hidden, async (_req, reply) => {
    const r = await ops.readiness();
    return reply
      .status(r.ready ? 200 : 503)
      .header('cache-control', 'no-store')
      .send(r);
  });
  app.get('/metrics', hidden, async (_req, reply) =>
    reply
      .header('content-type', ops.metrics.contentType)
      .header('cache-control', 'no-store')
      .send(await ops.metrics.render()),
  );
}

/**
 * Serves the three endpoints on their own HTTP listener (`--metrics-addr`) and resolves once it is
 * bound; anything else is 404.
 * @throws Error when the address cannot be bound
 */
export async function startOpsServer(
  ops: OpsEndpoints,
  addr: { host: string; port: number },
): Promise<{ address: AddressInfo; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'text/plain', 'method not allowed\n');
    const json = 'application/json; charset=utf-8';
    if (path === '/healthz') return send(200, json, JSON.stringify(health(ops.roles)));
    if (path === '/readyz') {
      void ops.readiness().then((r) => send(r.ready ? 200 : 503, json, JSON.stringify(r)));
      return;
    }
    if (path === '/metrics') {
      void ops.metrics.render().then(
        (text) => send(200, ops.metrics.contentType, text),
        (err: unknown) => send(500, 'text/plain', `metrics failed: ${err instanceof Error ? err.message : err}\n`),
      );
      return;
    }
    return send(404, 'text/plain', 'not found: /metrics, /healthz, /readyz\n');
  });
  // Bounded: a scraper that opens connections and sends nothing must not hold them.
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(addr.port, addr.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    address: server.address() as AddressInfo,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
