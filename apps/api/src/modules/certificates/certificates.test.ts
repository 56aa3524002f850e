import { X509Certificate } from 'node:crypto';
import { testDialects } from '@cordon/db/testing';
import { ensureRootCa } from '@cordon/pki';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, type TestApp } from '../../../test/helpers.ts';

const secret = Buffer.from('api-test-ca-secret-at-least-32-characters');

describe.each(testDialects())('root certificate download on %s (spec-notes §7 UI and tools)', (dialect) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp(dialect);
  });
  afterEach(async () => {
    await t.close();
  });

  it('answers 404 before the CA exists, then PEM, DER and CER to every role', async () => {
    expect((await call(t.app, t.rootToken, 'GET', '/restapi/certificates/machine/download?type=pem')).statusCode).toBe(
      404,
    );
    const ca = await ensureRootCa(t.handle, secret);
    const a = await createTenant(t, 1);

    const pem = await call(t.app, a.customerToken, 'GET', '/restapi/certificates/machine/download?type=pem');
    expect(pem.statusCode, pem.body).toBe(200);
    expect(pem.headers['content-type']).toContain('application/x-pem-file');
    expect(pem.headers['content-disposition']).toBe('attachment; filename="cordon-root-ca.pem"');
    expect(pem.body).toBe(ca.certificatePem);
    expect(pem.body).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    expect(pem.body).not.toContain('PRIVATE KEY');

    const der = await call(t.app, a.mspToken, 'GET', '/restapi/certificates/machine/download?type=der');
    expect(der.statusCode).toBe(200);
    expect(der.headers['content-type']).toBe('application/x-x509-ca-cert');
    expect(der.headers['content-disposition']).toBe('attachment; filename="cordon-root-ca.der"');
    const parsed = new X509Certificate(der.rawPayload);
    expect(parsed.fingerprint256).toBe(new X509Certificate(ca.certificatePem).fingerprint256);
    expect(parsed.ca).toBe(true);

    const cer = await call(t.app, t.rootToken, 'GET', '/restapi/certificates/machine/download?type=cer');
    expect(cer.headers['content-type']).toBe('application/pkix-cert');
    expect(cer.headers['content-disposition']).toBe('attachment; filename="cordon-root-ca.cer"');
    expect(cer.rawPayload.equals(der.rawPayload)).toBe(true);

    // Default PEM; a bad type is refused; no token, no certificate.
    expect((await call(t.app, a.customerToken, 'GET', '/restapi/certificates/machine/download')).body).toBe(
      ca.certificatePem,
    );
    expect(
      (await call(t.app, a.customerToken, 'GET', '/restapi/certificates/machine/download?type=p12')).statusCode,
    ).toBe(400);
    expect((await call(t.app, undefined, 'GET', '/restapi/certificates/machine/download?type=pem')).statusCode).toBe(
      401,
    );
  });
});
