// The console's browser bundle: built into dist/web, which pap serves at /console.
import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('./src/web', import.meta.url)),
  base: '/console/',
  plugins: [preact()],
  resolve: {
    // contracts is built as CommonJS for node, whose named exports Rollup does not see outside node_modules; its
    // ES source also lets the bundle keep only what the console uses (parseWarnings, HEADERS).
    alias: [{ find: /^@custos\/contracts$/, replacement: fileURLToPath(new URL('../contracts/src/index.ts', import.meta.url)) }],
  },
  build: {
    outDir: fileURLToPath(new URL('./dist/web', import.meta.url)),
    emptyOutDir: true,
    // Everything is served by pap under a CSP of 'self': no inlined scripts or data: URLs for fonts.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    chunkSizeWarningLimit: 1500,
  },
});
