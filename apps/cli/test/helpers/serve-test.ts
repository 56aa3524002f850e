/**
 * What the operator-facing tests of `cordon serve` share (metrics and health, upgrades, backups,
 * SIGHUP, logs, config check): the settings of a loopback instance, its bound ports, the upgrade
 * fixture's seed, one-question DNS clients over UDP (RFC 1035 §4.1) and self-signed certificates made
 * by openssl.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import dnsPacket from 'dns-packet';
import type { CordonProcess } from '../../../../e2e/support/cordon.ts';

/** The seed of the upgrade fixture (apps/cli/test/fixtures/v0.1.0/README.md), runnable against any release. */
export const SEED_SCRIPT = fileURLToPath(new URL('../fixtures/v0.1.0/seed.mjs', import.meta.url));

/**
 * The variables of a `cordon serve` on loopback with every port chosen by the kernel, its data in
 * `dataDir`, `upstreamPort` its only upstream and `admin` its first system admin; warnings only.
 */
export function loopbackServeEnv(
  dataDir: string,
  upstreamPort: number,
  admin: { email: string; password: string },
): NodeJS.ProcessEnv {
  return {
    CORDON_DATA_DIR: dataDir,
    CORDON_HTTP_ADDR: '127.0.0.1:0',
    CORDON_DNS_ADDR: '127.0.0.1:0',
    CORDON_BLOCKPAGE_ADDR: '127.0.0.1:0',
    CORDON_BLOCKPAGE_HTTPS_ADDR: '127.0.0.1:0',
    CORDON_UPSTREAM: `127.0.0.1:${upstreamPort}`,
    CORDON_ADMIN_EMAIL: admin.email,
    CORDON_ADMIN_PASSWORD: admin.password,
    CORDON_LOG_LEVEL: 'warn',
  };
}

/** A port the process bound, from its boot line: `key` is `http`, `dns`, `doh`, `metrics`… (`key=127.0.0.1:N`). */
export function bootPort(cordon: CordonProcess, key: string): number {
  const line = cordon.output.find((l) => l.startsWith('cordon serving:')) ?? '';
  return Number(new RegExp(` ${key}=127\\.0\\.0\\.1:(\\d+)`).exec(line)?.[1]);
}

/**
 * Seeds the upgrade fixture's tenants through the API at `httpPort` as the system admin: MSP
 * "Northwind MSP", customers "Acme School" (policy "Students", a block and an allow entry, location
 * 127.0.0.1/32) and "Beta Office" (location 127.0.0.2/32).
 * @returns the ids the seed printed
 * @throws Error with the seed's output when it fails
 */
export function seedFixtureTenants(
  httpPort: number,
  admin: { email: string; password: string },
): Promise<{ msp: number; school: number; office: number; students: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SEED_SCRIPT, String(httpPort), admin.email, admin.password]);
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(out))));
  });
}

/**
 * Sends one A question over UDP from `source` to 127.0.0.1:`port`.
 * @returns the answer's RCODE and its A records, or null when nothing came back within `timeoutMs`
 */
export function askA(
  port: number,
  name: string,
  source = '127.0.0.1',
  timeoutMs = 5000,
): Promise<{ rcode: number; addresses: string[] } | null> {
  const socket = dgram.createSocket('udp4');
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      socket.close();
      resolve(null);
    }, timeoutMs);
    socket.on('message', (msg) => {
      clearTimeout(timer);
      socket.close();
      const answer = dnsPacket.decode(msg);
      resolve({
        rcode: (answer.flags ?? 0) & 0xf,
        addresses: (answer.answers ?? []).flatMap((a) => (a.type === 'A' ? [a.data as string] : [])),
      });
    });
    socket.bind(0, source, () =>
      socket.send(
        dnsPacket.encode({
          type: 'query',
          id: randomBytes(2).readUInt16BE(0),
          flags: dnsPacket.RECURSION_DESIRED,
          questions: [{ type: 'A', name, class: 'IN' }],
        }),
        port,
        '127.0.0.1',
      ),
    );
  });
}

/**
 * The A records answered for `name` (see {@link askA}).
 * @throws Error when no answer came within 5 s
 */
export async function resolveA(port: number, name: string, source = '127.0.0.1'): Promise<string[]> {
  const answer = await askA(port, name, source);
  if (answer === null) throw new Error(`no answer to ${name}`);
  return answer.addresses;
}

/**
 * A self-signed P-256 certificate for `<name>.example`, valid `days` from now, and its key, made by
 * openssl in `dir` as `<name>.crt` and `<name>.key`.
 */
export function selfSigned(
  dir: string,
  name: string,
  days: number,
): { certFile: string; keyFile: string; cert: string; key: string } {
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-subj',
      `/CN=${name}.example`,
    ].concat(['-days', String(days), '-keyout', keyFile, '-out', certFile]),
    { stdio: 'ignore' },
  );
  return { certFile, keyFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}
