import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '@cordon/api';
import { createChangeFeed, openDatabase } from '@cordon/db';
import { describe, expect, it } from 'vitest';
import { runCordon } from '../../../e2e/support/cordon.ts';
import { call, claimsOf, login } from '../../api/test/helpers.ts';

describe('cordon create-admin', () => {
  it('creates admins through the real binary who then log in through the API; refuses bad input', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cordon-cli-admin-'));
    const env = { CORDON_DATA_DIR: dataDir };

    const system = await runCordon(
      ['create-admin', '--email', 'Ops@Example.test', '--name', 'Ops', '--role', 'system'],
      {
        ...env,
        CORDON_NEW_ADMIN_PASSWORD: 'Secr3t-pass',
      },
    );
    expect(system.code, system.output.join('\n')).toBe(0);
    expect(system.output).toEqual(['created system admin ops@example.test (id 1)']);

    const generated = await runCordon(['create-admin', '--email', 'sales@example.test', '--role', 'sales'], env);
    expect(generated.code, generated.output.join('\n')).toBe(0);
    const password = /^generated password \(shown once\): (\S+)$/.exec(generated.output[1] ?? '')?.[1];
    expect(password).toBeDefined();

    // Refusals: exit 1 with the reason, nothing written.
    const refusals: Array<[string[], string]> = [
      [
        ['--email', 'ops@example.test', '--role', 'system'],
        'An admin with the e-mail ops@example.test already exists.',
      ],
      [['--email', 'x@example.test', '--role', 'msp', '--msp-id', '42'], 'MSP 42 does not exist.'],
      [['--email', 'x@example.test', '--role', 'msp'], 'An MSP admin needs the id of its MSP.'],
      [
        ['--email', 'x@example.test', '--role', 'customer', '--customer-id', 'abc'],
        '--customer-id must be a positive integer',
      ],
      [
        ['--email', 'x@example.test', '--role', 'system', '--password', 'short'],
        'Password must be at least 8 characters',
      ],
      [['--email', 'x@example.test', '--role', 'root'], "argument 'root' is invalid"],
    ];
    for (const [args, message] of refusals) {
      const result = await runCordon(['create-admin', ...args], env);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.output.join('\n'), args.join(' ')).toContain(message);
    }

    const handle = openDatabase({ sqlitePath: join(dataDir, 'cordon.sqlite') });
    const app = await buildApp({
      db: handle,
      changes: createChangeFeed(handle),
      jwtSecret: new Uint8Array(randomBytes(32)),
    });
    try {
      expect(await handle.db.selectFrom('admins').select('email').orderBy('id').execute()).toEqual([
        { email: 'ops@example.test' },
        { email: 'sales@example.test' },
      ]);
      const rootToken = await login(app, 'ops@example.test', 'Secr3t-pass');
      expect(claimsOf(rootToken)).toMatchObject({ vue_role: 1, name: 'Ops' });
      expect(claimsOf(await login(app, 'sales@example.test', password ?? ''))).toMatchObject({ vue_role: 2 });

      // An MSP admin for an MSP the new system admin creates through the API.
      const msp = await call(app, rootToken, 'POST', '/restapi/msp', { name: 'Acme IT', company_name: 'Acme IT Ltd' });
      expect(msp.statusCode, msp.body).toBe(201);
      const mspId = msp.json().id as number;
      const tech = await runCordon(
        ['create-admin', '--email', 'tech@example.test', '--name', 'Tech', '--role', 'msp', '--msp-id', String(mspId)],
        { ...env, CORDON_NEW_ADMIN_PASSWORD: 'Secr3t-pass' },
      );
      expect(tech.code, tech.output.join('\n')).toBe(0);
      const techToken = await login(app, 'tech@example.test', 'Secr3t-pass');
      expect(claimsOf(techToken)).toMatchObject({ vue_role: 3, msp_id: mspId, account_name: 'Acme IT' });
      expect((await call(app, techToken, 'GET', `/restapi/msp/${mspId}`)).statusCode).toBe(200);
    } finally {
      await app.close();
      await handle.close();
    }
  }, 120_000);
});
