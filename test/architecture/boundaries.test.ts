import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { appEdge, checkBoundaries, unitOf } from './boundaries.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

describe('module boundaries (docs/architecture.md "Boundaries")', () => {
  it('finds no file cycle, unit cycle, aggregate bypass or forbidden edge in the workspaces', async () => {
    const violations = await checkBoundaries(repoRoot, ['apps', 'packages']);
    expect(violations.map((v) => `${v.rule}: ${v.detail}`)).toEqual([]);
  }, 120_000);

  it('fails on a planted unit cycle (alpha → beta → alpha with no file cycle)', async () => {
    const violations = await checkBoundaries(repoRoot, ['test/architecture/fixtures/planted']);
    expect(violations).toEqual([
      {
        rule: 'unit-cycle',
        detail: 'test/architecture/fixtures/planted/src/alpha ⇄ test/architecture/fixtures/planted/src/beta',
      },
    ]);
  }, 60_000);

  it('names units: API modules and console features one each, other folders of src one each, root files alone', () => {
    expect(unitOf('apps/api/src/modules/auth/routes.ts')).toBe('apps/api/src/modules/auth');
    expect(unitOf('apps/console/src/features/policies/api.ts')).toBe('apps/console/src/features/policies');
    expect(unitOf('apps/resolver/src/dns/wire.ts')).toBe('apps/resolver/src/dns');
    expect(unitOf('apps/resolver/src/request.ts')).toBe('apps/resolver/src/request.ts');
    expect(unitOf('packages/core/src/admins/service.ts')).toBe('packages/core/src/admins');
    expect(unitOf('node_modules/kysely/index.js')).toBeNull();
  });

  it('forbids an app importing another app, in code and in tests, except the composition root apps/cli', () => {
    expect(appEdge('apps/api/src/modules/tools/routes.ts', 'apps/resolver/src/index.ts')).toMatch(
      /^app-imports-no-app: /,
    );
    expect(appEdge('apps/api/src/modules/stats/stats.test.ts', 'apps/resolver/src/index.ts')).not.toBeNull();
    expect(appEdge('apps/api/test/query-log.ts', 'apps/resolver/src/querylog/writer.ts')).not.toBeNull();
    expect(appEdge('apps/resolver/test/x.test.ts', 'apps/api/test/helpers.ts')).not.toBeNull();
    expect(appEdge('apps/console/src/main.tsx', 'apps/api/src/index.ts')).not.toBeNull();
    // Within one app, into packages, and from the composition root: allowed.
    expect(appEdge('apps/api/src/modules/tools/routes.ts', 'apps/api/src/http/endpoint.ts')).toBeNull();
    expect(appEdge('apps/api/src/modules/tools/routes.ts', 'packages/policy/src/index.ts')).toBeNull();
    expect(appEdge('apps/cli/src/commands/serve.ts', 'apps/resolver/src/index.ts')).toBeNull();
    expect(appEdge('apps/cli/test/tool-dig-overrides.test.ts', 'apps/api/test/helpers.ts')).toBeNull();
  });
});
