/**
 * The service definitions shipped in deploy/, the Dockerfile and compose.yaml (docs/operations.md
 * "Service files", "Containers"): systemd checks each unit offline, its hardening scores "OK", and the
 * settings each file gives resolve to a valid `cordon serve` configuration. No container is built
 * here (no registry to pull the base images from): the image's conventions are checked as text.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { resolveServeConfig, SERVE_SETTINGS } from '../../apps/cli/src/config.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const unitDir = join(repoRoot, 'deploy/systemd');
const units = readdirSync(unitDir).filter((f) => f.endsWith('.service'));

/** Variables Cordon reads that are not `cordon serve` settings (docs/operations.md), and Node's own. */
const OTHER_VARIABLES = new Set([
  'CORDON_JWT_KEY',
  'CORDON_CA_SECRET',
  'CORDON_ADMIN_EMAIL',
  'CORDON_ADMIN_PASSWORD',
  'CORDON_CONFIG_FILE',
  'NODE_ENV',
  'NODE_OPTIONS',
  // glibc's heap settings (mallopt(3) "ENVIRONMENT"), docs/decisions.md "The addon does UDP I/O only".
  'MALLOC_ARENA_MAX',
  'MALLOC_TRIM_THRESHOLD_',
  'MALLOC_MMAP_THRESHOLD_',
]);
const SETTING_VARIABLES = new Set(SERVE_SETTINGS.map((s) => s.env));

/** `Key=Value` lines of a unit's `[Service]` section, repeated keys kept in order. */
function serviceSection(unit: string): [string, string][] {
  const text = readFileSync(join(unitDir, unit), 'utf8');
  const body = text.split(/^\[Service\]$/m)[1]?.split(/^\[/m)[0] ?? '';
  return body
    .split('\n')
    .filter((line) => /^[A-Za-z]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]);
}

/** The environment a unit's `Environment=` lines give (one `NAME=value` per line). */
function unitEnvironment(unit: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of serviceSection(unit)) {
    if (key !== 'Environment') continue;
    const eq = value.indexOf('=');
    env[value.slice(0, eq)] = value.slice(eq + 1);
  }
  return env;
}

function systemdAnalyze(args: string[]): { status: number | null; out: string } {
  const run = spawnSync('systemd-analyze', args, { cwd: unitDir, encoding: 'utf8' });
  if (run.error) throw new Error(`systemd-analyze (Debian's systemd package) is needed: ${run.error.message}`);
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

describe('systemd units (deploy/systemd)', () => {
  it('ships the all-in-one unit and one per role', () => {
    expect(units.sort()).toEqual([
      'cordon-api.service',
      'cordon-resolver.service',
      'cordon-worker.service',
      'cordon.service',
    ]);
  });

  it.each(units)('%s passes systemd-analyze verify with no warning', (unit) => {
    const { status, out } = systemdAnalyze(['verify', `./${unit}`]);
    expect(out.trim()).toBe('');
    expect(status).toBe(0);
  });

  it.each(units)('%s scores an exposure of at most 2.0 in systemd-analyze security', (unit) => {
    // --threshold is the exposure × 10; above it the command fails.
    const { status, out } = systemdAnalyze(['security', '--offline=true', '--threshold=20', `./${unit}`]);
    expect(out).toMatch(/Overall exposure level for .*: [01]\.\d OK/);
    expect(status).toBe(0);
  });

  it.each(units)('%s runs without root, in a read-only system, with the file limits the docs ask', (unit) => {
    const settings = new Map<string, string[]>();
    for (const [key, value] of serviceSection(unit)) settings.set(key, [...(settings.get(key) ?? []), value]);
    const one = (key: string) => settings.get(key)?.at(-1);
    expect(one('DynamicUser')).toBe('yes');
    expect(one('ProtectSystem')).toBe('strict');
    expect(one('NoNewPrivileges')).toBe('yes');
    expect(one('StateDirectory')).toBe('cordon');
    expect(Number(one('LimitNOFILE'))).toBeGreaterThanOrEqual(65536);
    expect(one('MemoryMax')).toMatch(/^\d+[MG]$/);
    // V8's JIT needs writable executable memory.
    expect(settings.has('MemoryDenyWriteExecute')).toBe(false);
    const roles = resolveServeConfig({}, unitEnvironment(unit)).roles;
    // Only a process that serves DNS or the block page may bind a privileged port.
    const bindsPorts = roles.includes('resolver') || roles.includes('blockpage');
    expect(one('CapabilityBoundingSet')).toBe(bindsPorts ? 'CAP_NET_BIND_SERVICE' : '');
    expect(one('AmbientCapabilities')).toBe(bindsPorts ? 'CAP_NET_BIND_SERVICE' : undefined);
  });

  it.each(units)('%s gives settings `cordon serve` accepts, for the roles its name says', (unit) => {
    const env = unitEnvironment(unit);
    for (const name of Object.keys(env)) expect(SETTING_VARIABLES.has(name) || OTHER_VARIABLES.has(name)).toBe(true);
    const config = resolveServeConfig({}, env);
    expect(config.dataDir).toBe('/var/lib/cordon');
    const expected: Record<string, string[]> = {
      'cordon.service': ['api', 'resolver', 'blockpage', 'worker'],
      'cordon-api.service': ['api'],
      'cordon-resolver.service': ['resolver', 'blockpage'],
      'cordon-worker.service': ['worker'],
    };
    expect([...config.roles].sort()).toEqual([...(expected[unit] ?? [])].sort());
    const exec = (key: string) => serviceSection(unit).find(([k]) => k === key)?.[1];
    expect(exec('ExecStart')).toBe('/usr/bin/node /opt/cordon/apps/cli/dist/cordon.mjs serve');
    // The settings file is checked before each start, and read again on `systemctl reload`.
    expect(exec('ExecStartPre')).toBe('/usr/bin/node /opt/cordon/apps/cli/dist/cordon.mjs config check');
    expect(exec('ExecReload')).toBe('/bin/kill -HUP $MAINPID');
    expect(env.CORDON_CONFIG_FILE).toBe('/etc/cordon/cordon.env');
    // glibc's heap settings come from the unit of every process that serves DNS (nothing sets them in code).
    if (config.roles.includes('resolver')) {
      expect(env).toMatchObject({
        MALLOC_ARENA_MAX: '2',
        MALLOC_TRIM_THRESHOLD_: '131072',
        MALLOC_MMAP_THRESHOLD_: '131072',
      });
    }
  });
});

describe('Prometheus alert rules (deploy/prometheus)', () => {
  const dir = join(repoRoot, 'deploy/prometheus');
  const promtool = (args: string[]) => {
    const run = spawnSync('promtool', args, { cwd: dir, encoding: 'utf8' });
    if (run.error) throw new Error(`promtool (Debian's prometheus package) is needed: ${run.error.message}`);
    return { status: run.status, out: `${run.stdout}${run.stderr}` };
  };

  it('are valid rules', () => {
    const { status, out } = promtool(['check', 'rules', 'cordon-rules.yml']);
    expect(out).toMatch(/SUCCESS: \d+ rules found/);
    expect(status).toBe(0);
  });

  it('fire on the series they watch (promtool test rules)', () => {
    const { status, out } = promtool(['test', 'rules', 'cordon-rules.test.yml']);
    expect(out).toContain('SUCCESS');
    expect(status).toBe(0);
  });

  it('only name metrics Cordon exposes', () => {
    const rules = readFileSync(join(dir, 'cordon-rules.yml'), 'utf8');
    const named = new Set([...rules.matchAll(/\b(cordon_[a-z_]+)/g)].map((m) => m[1] as string));
    const source = ['apps/cli/src/ops/metrics.ts'].map((f) => readFileSync(join(repoRoot, f), 'utf8')).join('\n');
    for (const name of named) {
      // Histograms expose _count/_sum/_bucket series of their own name.
      const base = name.replace(/_(count|sum|bucket)$/, '');
      expect(source.includes(`'${base}'`), name).toBe(true);
    }
  });
});

describe('Dockerfile and compose.yaml', () => {
  const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
  /** Instructions with their continuation lines joined, comments dropped. */
  const instructions = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'))
    .map((l) => {
      const [op = '', ...rest] = l.trim().split(/\s+/);
      return { op: op.toUpperCase(), args: rest.join(' ') };
    });
  const runtimeStart = instructions.findLastIndex((i) => i.op === 'FROM');
  const runtime = instructions.slice(runtimeStart);

  it('builds on a pinned official Node image and runs as its unprivileged user', () => {
    const froms = instructions.filter((i) => i.op === 'FROM').map((i) => i.args);
    expect(froms).toHaveLength(2);
    expect(froms[0]).toMatch(/^node:\$\{NODE_VERSION\}-bookworm AS build$/);
    expect(froms[1]).toMatch(/^node:\$\{NODE_VERSION\}-bookworm-slim$/);
    const nodeVersion = instructions.find((i) => i.op === 'ARG')?.args;
    expect(nodeVersion).toMatch(/^NODE_VERSION=20\.\d+$/);
    expect(runtime.filter((i) => i.op === 'USER').map((i) => i.args)).toEqual(['node']);
    // The user is set after the last step that needs root.
    expect(runtime.findIndex((i) => i.op === 'USER')).toBeGreaterThan(runtime.findLastIndex((i) => i.op === 'RUN'));
  });

  it('runs the bundle `npm run build` makes, with settings `cordon serve` accepts', () => {
    const entry = runtime.find((i) => i.op === 'ENTRYPOINT')?.args;
    expect(JSON.parse(entry ?? 'null')).toEqual(['node', 'apps/cli/dist/cordon.mjs']);
    const bundleScript = readFileSync(join(repoRoot, 'apps/cli/scripts/bundle.mjs'), 'utf8');
    expect(bundleScript).toContain('cordon.mjs');
    const env: Record<string, string> = {};
    for (const i of runtime.filter((x) => x.op === 'ENV')) {
      for (const m of i.args.matchAll(/(\w+)=(\S+)/g)) env[m[1] as string] = m[2] as string;
    }
    for (const name of Object.keys(env)) expect(SETTING_VARIABLES.has(name) || OTHER_VARIABLES.has(name)).toBe(true);
    const config = resolveServeConfig({}, env);
    expect(config.httpAddr).toEqual({ host: '0.0.0.0', port: 8080 });
    expect(config.dataDir).toBe('/var/lib/cordon');
    const exposed = runtime.find((i) => i.op === 'EXPOSE')?.args.split(' ');
    expect(exposed).toEqual(
      expect.arrayContaining([
        `${config.httpAddr.port}/tcp`,
        `${config.dnsAddr.port}/udp`,
        `${config.dnsAddr.port}/tcp`,
      ]),
    );
    expect(runtime.find((i) => i.op === 'HEALTHCHECK')?.args).toContain(`127.0.0.1:${config.httpAddr.port}/healthz`);
  });

  it('compose runs Cordon on PostgreSQL with settings `cordon serve` accepts and no password in the file', () => {
    const compose = parseYaml(readFileSync(join(repoRoot, 'compose.yaml'), 'utf8')) as {
      services: Record<string, { environment?: Record<string, string>; ports?: string[]; depends_on?: unknown }>;
    };
    expect(Object.keys(compose.services).sort()).toEqual(['cordon', 'postgres']);
    const cordon = compose.services.cordon;
    const env = cordon?.environment ?? {};
    for (const name of Object.keys(env)) expect(SETTING_VARIABLES.has(name) || OTHER_VARIABLES.has(name)).toBe(true);
    // Secrets come from .env, never from the file.
    expect(env.CORDON_ADMIN_PASSWORD).toMatch(/^\$\{CORDON_ADMIN_PASSWORD:\?/);
    expect(compose.services.postgres?.environment?.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
    // What compose hands the container with this .env: ${VAR}, ${VAR:-default}, ${VAR:?error}.
    const dotEnv: Record<string, string> = { POSTGRES_PASSWORD: 'pw', CORDON_ADMIN_PASSWORD: 'Change-me-1' };
    const interpolated = Object.fromEntries(
      Object.entries(env).map(([k, v]) => [
        k,
        v.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, kind?: string, alt?: string) => {
          const value = dotEnv[name];
          if (value !== undefined) return value;
          if (kind === '-') return alt ?? '';
          throw new Error(`compose needs ${name}: ${alt}`);
        }),
      ]),
    );
    const config = resolveServeConfig({}, interpolated);
    expect(config.databaseUrl).toBe('postgres://cordon:pw@postgres:5432/cordon');
    expect(config.blockIpv4).toBe('127.0.0.1');
    // Each published port lands on a port the image's settings listen on.
    const imageEnv = Object.fromEntries(
      runtime
        .filter((x) => x.op === 'ENV')
        .flatMap((i) => [...i.args.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]])),
    ) as Record<string, string>;
    const image = resolveServeConfig({}, imageEnv);
    const listening = new Set([image.httpAddr.port, image.dnsAddr.port, image.blockPageAddr.port]);
    for (const mapping of cordon?.ports ?? []) {
      expect(listening.has(Number(mapping.split(':')[1]?.split('/')[0]))).toBe(true);
    }
  });

  it('keeps the dependencies and data out of the build context', () => {
    const ignored = readFileSync(join(repoRoot, '.dockerignore'), 'utf8').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['.git', '**/node_modules', '**/dist', 'data', '.env']));
    // Everything the image copies from the build stage is made by the build or tracked by git.
    const tracked = execFileSync('git', ['ls-files', 'apps', 'packages', 'docs'], { cwd: repoRoot, encoding: 'utf8' });
    expect(tracked).toContain('apps/cli/scripts/bundle.mjs');
  });
});
