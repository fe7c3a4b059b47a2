/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The gateway serves the app at /admin/ from the jar's sluice-admin-ui/ folder
// (gateway: admin/AdminUiRoutes). Hashed file names under assets/ are cached for good;
// index.html is never cached, so a new build is picked up on the next load.
export default defineConfig({
  base: '/admin/',
  plugins: [react()],
  build: {
    outDir: 'target/classes/sluice-admin-ui',
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
  },
  server: {
    // `npm run dev` against a gateway on :8080.
    proxy: { '/admin/api': 'http://localhost:8080' },
  },
  test: {
    environment: 'node',
    include: ['src/**/*.test.{ts,tsx}'],
  },
});
