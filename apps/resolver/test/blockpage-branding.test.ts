import { createHash } from 'node:crypto';
import http from 'node:http';
import { type ChangeFeed, createChangeFeed, type DatabaseHandle } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solidPng } from '../../../e2e/support/png.ts';
import { type RunningBlockPage, renderBlockPage, startBlockPage } from '../src/blockpage/http.ts';
import { seedTenants } from './helpers/seed.ts';

/** GET `/` with `Host: host` from `localAddress`; resolves with the status and body. */
function get(port: number, host: string, localAddress: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/', localAddress, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** GET `path` of the page's server; resolves with the status, the headers and the body's bytes. */
function getBytes(
  port: number,
  path: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const LOGO = solidPng(30, 10);
const LOGO_SHA256 = createHash('sha256').update(LOGO).digest('hex');

/** Polls `fn` until it returns true (the snapshot reloads after a change is published), at most ~3 s. */
async function eventually(fn: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 60; i++) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not met in time');
}

describe.each(testDialects())('block-page branding on %s', (dialect) => {
  let handle: DatabaseHandle;
  let changes: ChangeFeed;
  let page: RunningBlockPage;
  let customerId: number;
  let mspId: number;

  beforeAll(async () => {
    handle = await createTestDatabase(dialect);
    const seeded = await seedTenants(handle);
    customerId = seeded.customerId;
    const customer = await handle.db
      .selectFrom('customers')
      .select('msp_id')
      .where('id', '=', customerId)
      .executeTakeFirstOrThrow();
    mspId = customer.msp_id;
    const at = new Date().toISOString();
    const row = { message: '', footer: '', support_contact: '', created_at: at, updated_at: at };
    await handle.db
      .insertInto('blockpages')
      .values([
        {
          ...row,
          customer_id: customerId,
          msp_id: null,
          title: '<script>alert(1)</script> Acme',
          support_contact: 'help@acme.test',
        },
        {
          ...row,
          customer_id: null,
          msp_id: mspId,
          title: 'MSP branded',
          message: 'Call us\nany time',
          logo: LOGO,
          logo_type: 'image/png',
          logo_sha256: LOGO_SHA256,
        },
        { ...row, customer_id: null, msp_id: null, title: 'System branded', footer: 'Operated by Cordon' },
      ])
      .execute();
    changes = createChangeFeed(handle);
    page = await startBlockPage({
      db: handle,
      changes,
      logger: pino({ level: 'silent' }),
      http: { host: '127.0.0.1', port: 0 },
    });
  });

  afterAll(async () => {
    await page.close();
    await changes.close();
    await handle.close();
  });

  it("shows the customer's branding, escaped, then the MSP's after it is deleted", async () => {
    // 127.0.0.1 is Acme's claimed address; gambling.example is blocked for it.
    const res = await get(page.address.port, 'gambling.example', '127.0.0.1');
    expect(res.status).toBe(200);
    expect(res.body).not.toContain('<script');
    expect(res.body).toContain('<h1>&#60;script&#62;alert(1)&#60;/script&#62; Acme</h1>');
    expect(res.body).toContain('<title>&#60;script&#62;alert(1)&#60;/script&#62; Acme</title>');
    expect(res.body).toContain('<a href="mailto:help@acme.test">help@acme.test</a>');
    // Fields the customer leaves empty come from the next level: the MSP's message, the system's footer.
    expect(res.body).toContain('<p>Call us<br>any time</p>');
    expect(res.body).toContain('Operated by Cordon');
    expect(res.body).toContain('Gambling');

    await handle.db.deleteFrom('blockpages').where('customer_id', '=', customerId).execute();
    await changes.publish('blockpages');
    await eventually(async () =>
      (await get(page.address.port, 'gambling.example', '127.0.0.1')).body.includes('<h1>MSP branded</h1>'),
    );
    const after = await get(page.address.port, 'gambling.example', '127.0.0.1');
    expect(after.body).not.toContain('Acme</h1>');
    expect(after.body).toContain('<title>MSP branded</title>');
  });

  it("shows the MSP's logo to its customer's clients and serves it by its hash, cacheable for good", async () => {
    const res = await get(page.address.port, 'gambling.example', '127.0.0.1');
    expect(res.body).toContain(`<img class="logo" src="/.cordon/logo/${LOGO_SHA256}" alt=""`);
    // The page may load images from its own origin only, and nothing else.
    const html = await getBytes(page.address.port, '/');
    expect(html.headers['content-security-policy']).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'",
    );
    const logo = await getBytes(page.address.port, `/.cordon/logo/${LOGO_SHA256}`);
    expect(logo.status).toBe(200);
    expect(logo.headers['content-type']).toBe('image/png');
    expect(logo.headers['cache-control']).toContain('immutable');
    expect(logo.body.equals(LOGO)).toBe(true);
    // An unknown hash or a path that is not one: 404, never another tenant's bytes or the page.
    expect((await getBytes(page.address.port, `/.cordon/logo/${'0'.repeat(64)}`)).status).toBe(404);
    expect((await getBytes(page.address.port, '/.cordon/logo/../../etc/passwd')).status).toBe(404);
    // The system's branding has no logo: an unknown client sees none.
    expect((await get(page.address.port, 'gambling.example', '127.0.0.2')).body).not.toContain('<img');
  });

  it("names the MSP's, else the system's, support contacts when no block page names one", async () => {
    const at = new Date().toISOString();
    await handle.db
      .insertInto('ui_support')
      .values([
        {
          msp_id: null,
          email: '',
          link: '',
          support_desk_url: 'https://desk.cordon.test/',
          created_at: at,
          updated_at: at,
        },
      ])
      .execute();
    await changes.publish('blockpages');
    // An unknown client: the system's block page names no contact, so the system's support desk.
    await eventually(async () =>
      (await get(page.address.port, 'gambling.example', '127.0.0.2')).body.includes(
        '<a href="https://desk.cordon.test/">https://desk.cordon.test/</a>',
      ),
    );
    await handle.db
      .insertInto('ui_support')
      .values({ msp_id: mspId, email: 'noc@msp.test', link: '', support_desk_url: '', created_at: at, updated_at: at })
      .execute();
    await changes.publish('blockpages');
    // Acme's customer block page is gone (first test); its MSP's names no contact: the MSP's support e-mail.
    await eventually(async () =>
      (await get(page.address.port, 'gambling.example', '127.0.0.1')).body.includes(
        '<a href="mailto:noc@msp.test">noc@msp.test</a>',
      ),
    );
    await handle.db.deleteFrom('ui_support').execute();
    await changes.publish('blockpages');
    await eventually(
      async () => !(await get(page.address.port, 'gambling.example', '127.0.0.2')).body.includes('desk.cordon'),
    );
  });

  it("shows an unknown client only the system's branding", async () => {
    const res = await get(page.address.port, 'gambling.example', '127.0.0.2');
    expect(res.body).toContain('<h1>System branded</h1>');
    expect(res.body).not.toContain('MSP branded');
  });
});

describe('renderBlockPage without branding', () => {
  it("keeps today's built-in text", () => {
    const html = renderBlockPage({ host: 'x.example', known: false, decision: null });
    expect(html).toContain('<h1>This site is blocked</h1>');
    expect(html).not.toContain('<footer>');
    expect(html).not.toContain('Need help?');
  });
});
