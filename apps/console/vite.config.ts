import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The console is served by the API at `/` (index.html fallback); in development Vite proxies the API.
// packages/shared declares "sideEffects": false, so the first-load chunk takes only the shared modules
// it imports and the domain/IP helpers (tldts, ipaddr.js) stay in the lazy form chunks (bench/README.md).
export default defineConfig({
  plugins: [react()],
  server: {
    proxy: { '/restapi': 'http://127.0.0.1:8080' },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 600,
  },
});
