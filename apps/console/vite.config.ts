import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

// The console is served by the API at `/` (index.html fallback); in development Vite proxies the API.
/**
 * The shared contract package is pure (no module-level effects), but its zod schemas are built by
 * calls Rollup cannot prove pure. Declaring its modules side-effect free lets the first-load chunk
 * take only the modules it imports (messages, constants, roles, the auth schema) and leaves the
 * domain/IP helpers (tldts, ipaddr.js) to the lazy chunks that validate forms (DESIGN.md §13).
 */
const sharedIsPure: Plugin = {
  name: 'cordon-shared-is-pure',
  transform(code, id) {
    return /[\\/]packages[\\/]shared[\\/]src[\\/]/.test(id) ? { code, map: null, moduleSideEffects: false } : null;
  },
};

export default defineConfig({
  plugins: [react(), sharedIsPure],
  server: {
    proxy: { '/restapi': 'http://127.0.0.1:8080' },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 600,
  },
});
