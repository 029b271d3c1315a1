import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { firstLoadSizeReport } from './scripts/size-report';

// The charts (apexcharts) are only imported by the lazily loaded graphs modal, so the public
// pages' first load stays small; the size report plugin prints that first-load figure.
export default defineConfig({
  root: __dirname,
  plugins: [react(), firstLoadSizeReport()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 700, // the lazily loaded charts chunk is big by nature
    rollupOptions: {
      output: {
        manualChunks(id) {
          if (id.includes('node_modules/apexcharts') || id.includes('node_modules/react-apexcharts')) return 'charts';
          if (/node_modules\/(react|react-dom|scheduler|react-router|react-router-dom)\//.test(id)) return 'react';
          return undefined;
        },
      },
    },
  },
  server: {
    proxy: { '/api': process.env.UPFLEET_API ?? 'http://127.0.0.1:8080' },
  },
});
