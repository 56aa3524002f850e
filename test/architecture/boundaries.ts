/**
 * The module-boundary check (docs/architecture.md "Boundaries"): builds the import graph of the
 * workspaces with dependency-cruiser and reports
 * - import cycles between files;
 * - import cycles between units: packages and apps, and inside each the units below `src/` (a folder
 *   of `src/` is one unit; a file directly in `src/` is its own unit; API modules, console features
 *   and core aggregates are one unit each);
 * - an aggregate of `packages/core` imported other than through its `index.ts`;
 * - the forbidden edges of {@link FORBIDDEN};
 * - an app importing another app ({@link appEdge}), apps/cli excepted.
 * Type-only imports count: a cycle of types is still a cycle of understanding. Test files are
 * leaves: their imports are checked against the forbidden edges but do not count for cycles.
 */
import { relative, sep } from 'node:path';
import { cruise, type ICruiseResult, type IModule } from 'dependency-cruiser';

/** One broken rule: its name and the files or units that break it. */
export interface BoundaryViolation {
  rule: 'file-cycle' | 'unit-cycle' | 'aggregate-index' | 'forbidden';
  /** Human-readable: the cycle `a → b → a`, or `from → to` with the reason. */
  detail: string;
}

/** A forbidden edge: a file matching `from` must not import a file matching `to`. */
interface ForbiddenEdge {
  name: string;
  from: RegExp;
  to: RegExp;
  reason: string;
}

/** Edges the layering forbids (docs/architecture.md "Layers" as written in docs/architecture.md). */
export const FORBIDDEN: readonly ForbiddenEdge[] = [
  {
    name: 'shared-is-pure',
    from: /^packages\/shared\//,
    to: /^(packages\/(?!shared\/)|apps\/)/,
    reason: 'the contract depends on nothing of ours',
  },
  {
    name: 'core-has-no-http',
    from: /^packages\/core\//,
    to: /^(apps\/|node_modules\/(fastify|@fastify)\/)/,
    reason: 'domain services know nothing of Fastify or of the apps',
  },
  {
    name: 'resolver-not-api',
    from: /^apps\/resolver\//,
    to: /^(apps\/(api|cli|console)\/|packages\/core\/)/,
    reason: 'the data plane reads its snapshot, never the control plane',
  },
  {
    name: 'console-only-shared',
    from: /^apps\/console\//,
    to: /^(apps\/(?!console\/)|packages\/(?!shared\/))/,
    reason: 'the console talks to the API over HTTP and shares only the contract',
  },
  {
    name: 'sdk-only-shared',
    from: /^packages\/sdk\/(src|examples)\//,
    to: /^(apps\/|packages\/(?!shared\/|sdk\/))/,
    reason: 'the SDK talks to the API over HTTP and shares only the contract (its tests may start an API)',
  },
  {
    name: 'cli-commands-use-core',
    from: /^apps\/cli\/src\/commands\/(?!serve\.ts$)/,
    to: /^apps\/api\//,
    reason: 'every command but serve (which composes the roles) uses core, never the API',
  },
];

/**
 * The app allowed to import the others: `cordon` (apps/cli) is the composition root that starts the
 * roles — API, resolver, console assets — in one process (docs/decisions.md "Apps import no app").
 */
export const COMPOSITION_ROOT = 'apps/cli';

/**
 * The app-to-app edge `from → to` breaks (docs/architecture.md "Boundaries"), as a detail text, or
 * null when it is allowed: no app imports another app — by package name (`@cordon/resolver`) or by
 * path — in its code or in its tests; what two apps share lives in a package. Only
 * {@link COMPOSITION_ROOT} may. Both paths repository-relative.
 */
export function appEdge(from: string, to: string): string | null {
  const [a, b] = [/^apps\/[^/]+/.exec(from)?.[0], /^apps\/[^/]+/.exec(to)?.[0]];
  if (a === undefined || b === undefined || a === b || a === COMPOSITION_ROOT) return null;
  return `app-imports-no-app: ${from} → ${to} (${a} may not import ${b}: share it through a package)`;
}

/**
 * The unit a repository-relative file belongs to, or null when it is not ours (node_modules, core
 * modules). `apps/api/src/modules/auth/routes.ts` → `apps/api/src/modules/auth`;
 * `apps/resolver/src/request.ts` → `apps/resolver/src/request.ts`.
 */
export function unitOf(file: string): string | null {
  const m = /^((?:apps|packages)\/[^/]+|test\/architecture\/fixtures\/[^/]+)\/(src|test|scripts)\/(.*)$/.exec(file);
  if (!m) return /^(apps|packages)\//.test(file) ? file.split('/').slice(0, 2).join('/') : null;
  const [, root, kind, rest] = m as unknown as [string, string, string, string];
  const parts = rest.split('/');
  const nested = ['modules', 'features'];
  if (parts.length >= 3 && nested.includes(parts[0] as string)) return `${root}/${kind}/${parts[0]}/${parts[1]}`;
  return `${root}/${kind}/${parts[0]}`;
}

/** The package or app of a unit (`apps/api`, `packages/core`, or the fixture root). */
function ownerOf(unit: string): string {
  const m = /^(test\/architecture\/fixtures\/[^/]+|(?:apps|packages)\/[^/]+)/.exec(unit);
  return m ? (m[1] as string) : unit;
}

/** Strongly connected components of size > 1 (or self-loops) of a graph (Tarjan). */
function cycles(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const on = new Set<string>();
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (on.has(w)) {
        low.set(v, Math.min(low.get(v) as number, idx.get(w) as number));
      }
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || graph.get(v)?.has(v)) out.push(scc.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
  return out;
}

/** Test files: `*.test.ts(x)`, wherever they live. */
const TEST_FILE = /\.test\.tsx?$/;

const addEdge = (g: Map<string, Set<string>>, a: string, b: string) => {
  let s = g.get(a);
  if (!s) {
    s = new Set();
    g.set(a, s);
  }
  s.add(b);
};

/**
 * Checks the boundaries of the files under `roots` (repository-relative folders).
 * @param repoRoot absolute path of the repository
 * @param roots folders to scan, e.g. `['apps', 'packages']`
 * @returns every violation found; empty when the graph is clean
 */
export async function checkBoundaries(repoRoot: string, roots: readonly string[]): Promise<BoundaryViolation[]> {
  const previous = process.cwd();
  process.chdir(repoRoot);
  let result: ICruiseResult;
  try {
    const extensions = ['.ts', '.tsx', '.js', '.mjs'];
    const cruised = await cruise(
      [...roots],
      {
        doNotFollow: { path: 'node_modules' },
        exclude: { path: '(/dist/|/node_modules/)' },
        tsPreCompilationDeps: true,
        preserveSymlinks: false,
        enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'default'], extensions },
      },
      { extensions },
      { tsConfig: { fileName: 'tsconfig.json' } },
    );
    result = cruised.output as ICruiseResult;
  } finally {
    process.chdir(previous);
  }
  const violations: BoundaryViolation[] = [];
  const files = new Map<string, Set<string>>();
  const units = new Map<string, Set<string>>();
  const owners = new Map<string, Set<string>>();
  const ours = (m: IModule) => !m.coreModule && !m.source.includes('node_modules/');
  for (const mod of result.modules.filter(ours)) {
    const from = relative(repoRoot, `${repoRoot}${sep}${mod.source}`).split(sep).join('/');
    for (const dep of mod.dependencies) {
      const to = dep.resolved;
      for (const rule of FORBIDDEN) {
        if (rule.from.test(from) && rule.to.test(to)) {
          violations.push({ rule: 'forbidden', detail: `${rule.name}: ${from} → ${to} (${rule.reason})` });
        }
      }
      const crossing = appEdge(from, to);
      if (crossing !== null) violations.push({ rule: 'forbidden', detail: crossing });
      if (dep.coreModule || dep.couldNotResolve || to.includes('node_modules/')) continue;
      // A test file is a leaf (nothing imports it): its imports cannot close a cycle of the code, and
      // a test beside its module may well reach the module again through the app it builds.
      if (TEST_FILE.test(from)) continue;
      addEdge(files, from, to);
      const core = /^packages\/core\/src\/([^/]+)\//.exec(to);
      if (core && !from.startsWith(`packages/core/src/${core[1]}/`) && !to.endsWith(`/${core[1]}/index.ts`)) {
        violations.push({ rule: 'aggregate-index', detail: `${from} → ${to} (import the aggregate's index.ts)` });
      }
      const [uf, ut] = [unitOf(from), unitOf(to)];
      if (!uf || !ut || uf === ut) continue;
      const [of, ot] = [ownerOf(uf), ownerOf(ut)];
      if (of === ot) addEdge(units, uf, ut);
      else addEdge(owners, of, ot);
    }
  }
  for (const c of cycles(files)) violations.push({ rule: 'file-cycle', detail: c.join(' ⇄ ') });
  for (const c of [...cycles(units), ...cycles(owners)]) violations.push({ rule: 'unit-cycle', detail: c.join(' ⇄ ') });
  return violations;
}
