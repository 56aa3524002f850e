import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { dotHostName } from '@cordon/shared';
import dnsPacket from 'dns-packet';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, startCordon } from '../../../e2e/support/cordon.ts';
import { startFakeUpstream } from '../../resolver/test/helpers/fake-upstream.ts';
import { ConfigError, describeConfig, resolveServeConfig } from '../src/config.ts';

const ADMIN = { email: 'root@cordon.test', password: 'Sup3r-secret' };
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The DoT settings of `cordon serve` (docs/agent.md "DoT", "Phones"). */
describe('DoT and phone settings', () => {
  const base = { CORDON_UPSTREAM: '127.0.0.1:53' };

  it('default to off and unset', () => {
    const c = resolveServeConfig({}, base);
    expect([c.dotAddr, c.dotHostname, c.dohPublicUrl]).toEqual([null, null, null]);
    expect(describeConfig(c, 'x')).toContain(' dot=off dot_hostname=unset doh_public_url=unset ');
  });

  it('read the flag over the variable, normalise the host name and the URL', () => {
    const c = resolveServeConfig(
      { dotAddr: '[::1]:853', dotHostname: 'DOT.Filter.Example.net.' },
      {
        ...base,
        CORDON_DOT_ADDR: '0.0.0.0:8853',
        CORDON_DOT_HOSTNAME: 'ignored.example',
        CORDON_DOH_PUBLIC_URL: 'https://dns.filter.example.net/',
      },
    );
    expect(c.dotAddr).toEqual({ host: '::1', port: 853 });
    expect(c.dotHostname).toBe('dot.filter.example.net');
    expect(c.dohPublicUrl).toBe('https://dns.filter.example.net');
    expect(describeConfig(c, 'x')).toContain('dot=[::1]:853 (root CA)');
  });

  it('refuse a malformed address, host name or URL', () => {
    expect(() => resolveServeConfig({}, { ...base, CORDON_DOT_ADDR: 'localhost' })).toThrow(/--dot-addr/);
    for (const bad of ['localhost', 'dot..example', '-dot.example', 'dot_1.example', 'a.*.example']) {
      expect(() => resolveServeConfig({ dotHostname: bad }, base)).toThrow(ConfigError);
    }
    for (const bad of ['http://dns.example', 'dns.example', 'https://dns.example/?x=1']) {
      expect(() => resolveServeConfig({ dohPublicUrl: bad }, base)).toThrow(/--doh-public-url/);
    }
  });
});

/** A `name=…:port` field of the boot line. */
function portOf(output: string[], field: string): number {
  const line = output.find((l) => l.startsWith('cordon serving:')) ?? '';
  return Number(new RegExp(` ${field}=[^ ]*:(\\d+)( |$)`).exec(line)?.[1]);
}

/** Logs in with the password grant the console uses (PKCE code flow), over HTTP. */
async function token(port: number): Promise<string> {
  const { createHash, randomBytes } = await import('node:crypto');
  const verifier = randomBytes(64).toString('hex');
  const query = new URLSearchParams({
    client_id: '2',
    response_type: 'code',
    redirect_uri: 'http://localhost/cb',
    state: randomBytes(20).toString('hex'),
    code_verifier: verifier,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
  });
  const res = await fetch(`http://127.0.0.1:${port}/restapi/oauth/authorize?${query}`, {
    headers: { authorization: `Basic ${Buffer.from(`${ADMIN.email}:${ADMIN.password}`).toString('base64')}` },
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

/**
 * One DoT query for `www.example` A over a TLS connection trusting only `ca`; resolves with whether
 * the chain verified, the answer's rcode and its first A address ('' when none).
 */
function dotQuery(
  port: number,
  servername: string,
  ca: string,
): Promise<{ authorized: boolean; rcode: string; a: string }> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername, ca }, () => {
      const wire = dnsPacket.encode({ type: 'query', id: 7, questions: [{ name: 'www.example', type: 'A' }] });
      const frame = Buffer.alloc(wire.length + 2);
      frame.writeUInt16BE(wire.length, 0);
      wire.copy(frame, 2);
      socket.write(frame);
    });
    let buf = Buffer.alloc(0);
    socket.on('data', (c: Buffer) => {
      buf = Buffer.concat([buf, c]);
      if (buf.length >= 2 && buf.length >= buf.readUInt16BE(0) + 2) {
        const answer = dnsPacket.decode(buf.subarray(2, buf.readUInt16BE(0) + 2)) as {
          id?: number;
          rcode?: string;
          answers?: { type: string; data?: unknown }[];
        };
        socket.destroy();
        expect(answer.id).toBe(7);
        const a = answer.answers?.find((r) => r.type === 'A')?.data;
        resolve({ authorized: socket.authorized, rcode: answer.rcode ?? '', a: typeof a === 'string' ? a : '' });
      }
    });
    socket.on('error', reject);
  });
}

describe('cordon serve: DoT with the root downloaded through the API (docs/agent.md "DoT")', () => {
  it('serves DoT with a leaf the downloaded root verifies, and identifies a location made through the API by its host name', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'cordon-dot-')), 'data');
    dirs.push(dataDir);
    const upstream = await startFakeUpstream();
    const cordon = await startCordon(
      {
        CORDON_UPSTREAM: `127.0.0.1:${upstream.port}`,
        CORDON_DATA_DIR: dataDir,
        CORDON_ROLES: 'api,resolver',
        CORDON_HTTP_ADDR: '127.0.0.1:0',
        CORDON_DNS_ADDR: '127.0.0.1:0',
        CORDON_DOT_ADDR: '127.0.0.1:0',
        CORDON_DOT_HOSTNAME: 'dot.cordon.test',
        CORDON_DOH_PUBLIC_URL: 'https://dns.cordon.test',
        CORDON_ADMIN_EMAIL: ADMIN.email,
        CORDON_ADMIN_PASSWORD: ADMIN.password,
      },
      60_000,
      CLI,
    );
    try {
      const http = portOf(cordon.output, 'http');
      const dot = portOf(cordon.output, 'dot');
      expect(dot).toBeGreaterThan(0);
      const auth = { authorization: `Bearer ${await token(http)}` };
      const res = await fetch(`http://127.0.0.1:${http}/restapi/certificates/machine/download?type=pem`, {
        headers: auth,
      });
      expect(res.status).toBe(200);
      const root = await res.text();
      // A phone's host name under the suffix: the chain verifies against the downloaded root; the
      // label names no device and 127.0.0.1 no location, so the answer is REFUSED (never open).
      const answer = await dotQuery(dot, 'mzxw6ytboi.dot.cordon.test', root);
      expect(answer).toEqual({ authorized: true, rcode: 'REFUSED', a: '' });
      // A virtual location made through the API: its host name, built from the API's settings as
      // the console builds it, identifies it (the upstream's answer instead of REFUSED).
      const post = async (path: string, body: unknown) => {
        const r = await fetch(`http://127.0.0.1:${http}/restapi${path}`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(r.status, await r.clone().text()).toBe(201);
        return (await r.json()) as { id: number; key: string };
      };
      const msp = await post('/msp', { name: 'MSP One', company_name: 'MSP One Ltd' });
      const customer = await post('/users/', { accountName: 'Acme', msp_id: msp.id });
      const location = await post(`/users/${customer.id}/locations/virtual`, { name: 'Phones' });
      const settings = (await (
        await fetch(`http://127.0.0.1:${http}/restapi/users/${customer.id}/phone-setup`, { headers: auth })
      ).json()) as { dot_hostname: string; doh_url: string };
      expect(settings).toEqual({ dot_hostname: 'dot.cordon.test', doh_url: 'https://dns.cordon.test' });
      const host = dotHostName(location.key, settings.dot_hostname)!;
      // The change reaches the data-plane thread within a second.
      let identified = await dotQuery(dot, host, root);
      for (let i = 0; i < 20 && identified.rcode === 'REFUSED'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        identified = await dotQuery(dot, host, root);
      }
      expect(identified).toEqual({ authorized: true, rcode: 'NOERROR', a: '192.0.2.10' });
      // The boot line says where DoT listens and what phones are given.
      const line = cordon.output.find((l) => l.startsWith('cordon serving:')) ?? '';
      expect(line).toContain('dot_hostname=dot.cordon.test doh_public_url=https://dns.cordon.test');
    } finally {
      await cordon.stop();
      await upstream.close();
    }
  }, 120_000);
});
