import { defineProject } from 'vitest/config';
import react from '@vitejs/plugin-react';
import path from 'node:path';

export default defineProject({
  plugins: [react()],
  root: path.resolve(__dirname, '..'),
  test: {
    name: 'web',
    environment: 'jsdom',
    include: ['web/src/**/*.test.{ts,tsx}'],
    setupFiles: [path.resolve(__dirname, 'src/test-setup.ts')],
    globals: true,
  },
});
