import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/** Files worth compressing: text formats only (images and fonts are compressed already). */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt|map)$/;
/** Below this many bytes a compressed copy saves nothing worth a second file. */
const MIN_BYTES = 1024;

/**
 * Writes a `.br` (brotli, quality 11) and a `.gz` (gzip, level 9) copy beside every compressible
 * output file at build, so the API serves them precompressed (`@fastify/static` `preCompressed`,
 * RFC 9110 §8.4 Content-Encoding) without compressing per request.
 */
function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'cordon-precompress',
    apply: 'build',
    configResolved(config) {
      // resolve: an absolute --outDir (e.g. a test's own folder) stays as given.
      outDir = resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const walk = (dir: string): string[] =>
        readdirSync(dir).flatMap((name) => {
          const path = join(dir, name);
          return statSync(path).isDirectory() ? walk(path) : [path];
        });
      for (const file of walk(outDir)) {
        if (!COMPRESSIBLE.test(file) || !existsSync(file)) continue;
        const data = readFileSync(file);
        if (data.length < MIN_BYTES) continue;
        const gz = gzipSync(data, { level: 9 });
        const br = brotliCompressSync(data, {
          params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
        });
        // A concurrent build may have emptied the directory meanwhile: its own run writes the copies.
        if (!existsSync(file)) continue;
        writeFileSync(`${file}.gz`, gz);
        writeFileSync(`${file}.br`, br);
      }
    },
  };
}

/** zod's JSON Schema generation (`.toJSONSchema()`, `z.toJSONSchema`): modules the console never runs. */
const ZOD_JSON_SCHEMA =
  /[\\/]zod[\\/]v4[\\/]core[\\/](?:to-json-schema|json-schema-processors|json-schema-generator)\.js$/;

/**
 * Replaces zod's JSON Schema generation with stubs of the same exports that throw when called. The
 * console validates answers with `safeParse` and never asks for a JSON Schema, but zod's classic
 * schemas import the generator statically (every schema has a `toJSONSchema` method), so it was in
 * every first load (bench/README.md "Console first load"). A call still fails clearly, never silently.
 */
function zodWithoutJsonSchema(): Plugin {
  return {
    name: 'cordon-zod-without-json-schema',
    apply: 'build',
    enforce: 'pre',
    load(id) {
      if (!ZOD_JSON_SCHEMA.test(id)) return null;
      const source = readFileSync(id, 'utf8');
      const names = new Set<string>();
      for (const m of source.matchAll(/^export (?:function|const|class) (\w+)/gm)) names.add(m[1] as string);
      for (const m of source.matchAll(/^export \{ (\w+) as (\w+) \}/gm)) names.add(m[2] as string);
      const stub =
        'function unavailable() { throw new Error("zod JSON Schema generation is not in the console build"); }';
      // Factories (`create…Method`) are called when a schema is built: they return the throwing function.
      const exports = [...names].map((n) =>
        n.startsWith('create') ? `export const ${n} = () => unavailable;` : `export const ${n} = unavailable;`,
      );
      return `${stub}\n${exports.join('\n')}\n`;
    },
  };
}

/** Mantine's ScrollArea module, whose one import of floating-ui `scrollAreaWithoutFloatingUi` replaces. */
const MANTINE_SCROLL_AREA = /[\\/]@mantine[\\/]core[\\/]esm[\\/]components[\\/]ScrollArea[\\/]ScrollArea\.mjs$/;
const FLOATING_UI_MERGE_REFS = 'import { useMergeRefs } from "@floating-ui/react";';

/**
 * Mantine's ScrollArea (every Table's scroll container) takes `useMergeRefs` from @floating-ui/react:
 * Rollup keeps that module whole in one chunk, so any page with a table fetched floating-ui's
 * positioning code (≈ 15 KB gzip) that only popovers and tooltips run (bench/README.md "Console
 * first load"). Mantine's own `useMergedRef` (@mantine/hooks) merges refs the same way, cleanups
 * included. Warns, and leaves the module as it is, when a Mantine release changes that import.
 */
function scrollAreaWithoutFloatingUi(): Plugin {
  return {
    name: 'cordon-scroll-area-without-floating-ui',
    apply: 'build',
    transform(code, id) {
      if (!MANTINE_SCROLL_AREA.test(id)) return null;
      if (!code.includes(FLOATING_UI_MERGE_REFS)) {
        this.warn('Mantine ScrollArea no longer imports useMergeRefs alone: floating-ui is back in table pages');
        return null;
      }
      return code.replace(
        FLOATING_UI_MERGE_REFS,
        'import { useMergedRef } from "@mantine/hooks";\nconst useMergeRefs = (refs) => useMergedRef(...refs);',
      );
    },
  };
}

// The console is served by the API at `/` (index.html fallback); in development Vite proxies the API.
// packages/shared declares "sideEffects": false, so the first-load chunk takes only the shared modules
// it imports and the IP helpers (ipaddr.js) stay in the lazy form chunks (bench/README.md).
export default defineConfig({
  plugins: [react(), zodWithoutJsonSchema(), scrollAreaWithoutFloatingUi(), precompress()],
  server: {
    proxy: { '/restapi': 'http://127.0.0.1:8080' },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // dist/.vite/manifest.json: the chunk graph bench/console-bundle.mjs sizes (never served: a dot folder).
    manifest: true,
    rollupOptions: {
      // ipaddr.js does nothing when imported but defines functions, yet declares no `sideEffects`:
      // without this, any chunk importing packages/shared's net.ts carries it whole even when it
      // calls none of it (bench/README.md "Console first load").
      treeshake: { moduleSideEffects: (id) => !/[\\/]node_modules[\\/]ipaddr\.js[\\/]/.test(id) },
      output: {
        // Every part's French strings (`i18n/fr.json`, `features/<name>/i18n/fr.json`, each a dynamic
        // import) in one chunk fetched when French is chosen, instead of one request per part.
        manualChunks: (id) => (/[\\/]i18n[\\/]fr\.json$/.test(id) ? 'i18n-fr' : undefined),
      },
    },
    chunkSizeWarningLimit: 600,
  },
});
