import { defineProject } from 'vitest/config';
import react from '@vitejs/plugin-react';
import path from 'node:path';

export default defineProject({
  plugins: [react()],
  test: {
    name: 'web',
    environment: 'jsdom',
    // Project root is web/, so this is web/src/**/*.test.{ts,tsx} from the repo root.
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: [path.resolve(__dirname, 'src/test-setup.ts')],
    globals: true,
  },
});
