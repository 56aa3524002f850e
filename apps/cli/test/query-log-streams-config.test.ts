/**
 * The log-stream settings of `cordon serve` (docs/operations.md "Query-log streaming"): parsed into
 * targets, refused with a ConfigError naming the setting, the SIEM token a variable only and never
 * in the boot line.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, describeConfig, resolveServeConfig } from '../src/config.ts';

const BASE = { CORDON_UPSTREAM: '127.0.0.1:53' };
const dir = mkdtempSync(join(tmpdir(), 'cordon-stream-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('log-stream settings', () => {
  it('are off by default', () => {
    const c = resolveServeConfig({}, BASE);
    expect([c.dnstap, c.syslog, c.logStreamUrl]).toEqual([null, null, null]);
    expect(describeConfig(c, 'db')).toContain('log_streams=none');
  });

  it('parse each target; the token stays out of the target and the boot line', () => {
    const ca = join(dir, 'ca.pem');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const c = resolveServeConfig(
      { dnstap: 'unix:/run/cordon/dnstap.sock', logStreamCa: ca },
      {
        ...BASE,
        CORDON_SYSLOG: 'tls://logs.example:6514',
        CORDON_LOG_STREAM_URL: 'https://siem.example:8088/services/collector/raw',
        CORDON_LOG_STREAM_AUTHORIZATION: 'Splunk hec-s3cret',
      },
    );
    expect(c.dnstap).toEqual({ kind: 'dnstap', path: '/run/cordon/dnstap.sock' });
    expect(c.syslog).toEqual({ kind: 'syslog', host: 'logs.example', port: 6514, tls: true });
    expect(c.logStreamUrl).toEqual({ kind: 'ndjson', url: 'https://siem.example:8088/services/collector/raw' });
    expect(c.logStreamAuthorization).toBe('Splunk hec-s3cret');
    expect(c.logStreamCaFile).toBe(ca);
    const line = describeConfig(c, 'db');
    expect(line).toContain(
      'log_streams=dnstap unix:/run/cordon/dnstap.sock,syslog tls://logs.example:6514,ndjson https://siem.example:8088/services/collector/raw',
    );
    expect(line).not.toContain('s3cret');
  });

  it('refuse bad values with a ConfigError naming the setting', () => {
    const bad: Array<[Record<string, string>, RegExp]> = [
      [{ CORDON_DNSTAP: 'unix:dnstap.sock' }, /--dnstap \/ CORDON_DNSTAP: expected unix:\/absolute\/path/],
      [{ CORDON_SYSLOG: 'udp://logs.example:514' }, /--syslog \/ CORDON_SYSLOG: expected tcp:\/\/host:port/],
      [
        { CORDON_LOG_STREAM_URL: 'http://siem.example/raw' },
        /--log-stream-url \/ CORDON_LOG_STREAM_URL: expected an https/,
      ],
      [
        { CORDON_LOG_STREAM_AUTHORIZATION: 'Bearer x' },
        /CORDON_LOG_STREAM_AUTHORIZATION is set without --log-stream-url/,
      ],
      [{ CORDON_LOG_STREAM_CA: join(dir, 'missing.pem') }, /--log-stream-ca \/ CORDON_LOG_STREAM_CA: .*missing\.pem/],
    ];
    for (const [env, message] of bad) {
      expect(() => resolveServeConfig({}, { ...BASE, ...env })).toThrow(ConfigError);
      expect(() => resolveServeConfig({}, { ...BASE, ...env })).toThrow(message);
    }
  });
});
