import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  describeConfig,
  flagAttribute,
  parseHostPort,
  resolvConfNameservers,
  resolveServeConfig,
  SERVE_SETTINGS,
} from '../src/config.ts';

describe('serve configuration', () => {
  it('gives every setting a flag and a CORDON_* (or DATABASE_URL) variable', () => {
    for (const s of SERVE_SETTINGS) {
      expect(s.flag).toMatch(/^--[a-z0-9-]+ <.+>$/);
      expect(s.env).toMatch(/^(CORDON_[A-Z0-9_]+|DATABASE_URL)$/);
    }
    expect(flagAttribute({ flag: '--blockpage-addr <host:port>' })).toBe('blockpageAddr');
  });

  it('takes a flag over its variable over the default', () => {
    const env = { CORDON_UPSTREAM: '127.0.0.9:53,[::1]:5300', CORDON_DNS_ADDR: '127.0.0.1:1053' };
    const c = resolveServeConfig({ dnsAddr: '127.0.0.1:2053', blockpageAddr: '127.0.0.1:9081' }, env);
    expect(c.dnsAddr).toEqual({ host: '127.0.0.1', port: 2053 });
    expect(c.blockPageAddr).toEqual({ host: '127.0.0.1', port: 9081 });
    expect(c.upstreams).toEqual([
      { host: '127.0.0.9', port: 53 },
      { host: '::1', port: 5300 },
    ]);
    expect(c.httpAddr).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(c.roles).toEqual(['api', 'resolver', 'blockpage', 'worker']);
  });

  it('refuses malformed settings with a message naming the flag and variable', () => {
    const base = { CORDON_UPSTREAM: '127.0.0.1:53' };
    expect(() => resolveServeConfig({ httpAddr: 'localhost' }, base)).toThrow(/--http-addr \/ CORDON_HTTP_ADDR/);
    expect(() => resolveServeConfig({}, { ...base, CORDON_ROLES: 'api,dhcp' })).toThrow(ConfigError);
    expect(() => resolveServeConfig({}, { ...base, CORDON_BLOCK_IPV4: '::1' })).toThrow(/not an IPv4/);
    expect(() => resolveServeConfig({}, { ...base, DATABASE_URL: 'mysql://x' })).toThrow(/postgres/);
    expect(() => parseHostPort('1.2.3.4:70000', 'x')).toThrow(/host:port/);
  });

  it('reads the CHAOS texts (unset: REFUSED), refusing control characters and texts over 255 bytes', () => {
    const base = { CORDON_UPSTREAM: '127.0.0.1:53' };
    expect(resolveServeConfig({}, base)).toMatchObject({ chaosVersion: '', chaosIdentity: '' });
    expect(
      resolveServeConfig({ chaosVersion: 'Cordon 0.1' }, { ...base, CORDON_CHAOS_IDENTITY: 'resolver-eu-1' }),
    ).toMatchObject({ chaosVersion: 'Cordon 0.1', chaosIdentity: 'resolver-eu-1' });
    expect(() => resolveServeConfig({ chaosVersion: 'a\nb' }, base)).toThrow(/--chaos-version .*control characters/);
    expect(() => resolveServeConfig({}, { ...base, CORDON_CHAOS_IDENTITY: 'é'.repeat(128) })).toThrow(/255 bytes/);
  });

  it('reads the resolver hardening limits (RRL, TCP caps, UDP buffer) with their defaults, refusing non-numbers', () => {
    const base = { CORDON_UPSTREAM: '127.0.0.1:53' };
    expect(resolveServeConfig({}, base)).toMatchObject({
      rrlRate: 200,
      rrlSlip: 2,
      tcpMaxConnections: 1000,
      tcpMaxPerSource: 20,
      udpRecvBuffer: 8 * 1024 * 1024,
    });
    const c = resolveServeConfig({ rrlSlip: '1' }, { ...base, CORDON_RRL_RATE: '0', CORDON_TCP_MAX_PER_SOURCE: '5' });
    expect(c).toMatchObject({ rrlRate: 0, rrlSlip: 1, tcpMaxPerSource: 5 });
    expect(describeConfig(c, 'x')).toContain('rrl=off');
    expect(() => resolveServeConfig({ rrlRate: 'fast' }, base)).toThrow(/--rrl-rate \/ CORDON_RRL_RATE/);
    expect(() => resolveServeConfig({}, { ...base, CORDON_RRL_SLIP: '-1' })).toThrow(ConfigError);
    expect(() => resolveServeConfig({}, { ...base, CORDON_TCP_MAX_CONNECTIONS: '0' })).toThrow(/from 1/);
  });

  it('reads the resolver threads (1 to 64) and the UDP backend (auto, batch, dgram), refusing others', () => {
    const base = { CORDON_UPSTREAM: '127.0.0.1:53' };
    expect(resolveServeConfig({}, base)).toMatchObject({ resolverThreads: 1, udpBackend: 'auto' });
    const c = resolveServeConfig({ resolverThreads: '4' }, { ...base, CORDON_UDP_BACKEND: 'Batch' });
    expect(c).toMatchObject({ resolverThreads: 4, udpBackend: 'batch' });
    expect(describeConfig(c, 'x')).toContain('resolver_threads=4 udp_backend=batch');
    expect(() => resolveServeConfig({ resolverThreads: '0' }, base)).toThrow(
      /--resolver-threads \/ CORDON_RESOLVER_THREADS: expected a whole number from 1 to 64/,
    );
    expect(() => resolveServeConfig({}, { ...base, CORDON_UDP_BACKEND: 'epoll' })).toThrow(
      /--udp-backend \/ CORDON_UDP_BACKEND: "epoll" is not one of auto, batch, dgram/,
    );
  });

  it('reads the query-log writer priority (idle by default, or normal), refusing others', () => {
    const base = { CORDON_UPSTREAM: '127.0.0.1:53' };
    const idle = resolveServeConfig({}, base);
    expect(idle.queryLogWriter).toBe('idle');
    expect(describeConfig(idle, 'x')).toContain('query_log_writer=idle');
    const normal = resolveServeConfig({}, { ...base, CORDON_QUERY_LOG_WRITER: ' Normal ' });
    expect(normal.queryLogWriter).toBe('normal');
    expect(describeConfig(normal, 'x')).toContain('query_log_writer=normal');
    expect(
      resolveServeConfig({ queryLogWriter: 'idle' }, { ...base, CORDON_QUERY_LOG_WRITER: 'normal' }).queryLogWriter,
    ).toBe('idle');
    expect(() => resolveServeConfig({}, { ...base, CORDON_QUERY_LOG_WRITER: 'realtime' })).toThrow(
      /--query-log-writer \/ CORDON_QUERY_LOG_WRITER: "realtime" is not one of idle, normal/,
    );
  });

  it('reads upstreams from resolv.conf when none is configured', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cordon-'));
    const path = join(dir, 'resolv.conf');
    writeFileSync(path, '# x\nnameserver 192.0.2.53\nnameserver fe80::1%eth0\nsearch example\nnameserver bogus\n');
    expect(resolvConfNameservers(path)).toEqual([
      { host: '192.0.2.53', port: 53 },
      { host: 'fe80::1%eth0', port: 53 },
    ]);
  });

  it('describes the effective configuration in one line without secrets', () => {
    const c = resolveServeConfig({ adminPassword: 'S3cret-pass' }, { CORDON_UPSTREAM: '127.0.0.1:53' });
    const line = describeConfig(c, '/tmp/cordon.sqlite');
    expect(line).not.toContain('\n');
    expect(line).not.toContain('S3cret');
    expect(line).toContain('dns=127.0.0.1:5353');
    expect(line).toContain('upstream=127.0.0.1:53');
  });
});
