import { defineConfig } from 'vitest/config';

// One `npm test` runs every workspace: node projects for servers/agent/cli/e2e, jsdom for web.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          include: ['proto/**/*.test.ts', 'control-plane/src/**/*.test.ts', 'agent/src/**/*.test.ts', 'cli/src/**/*.test.ts'],
          pool: 'forks',
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['tests/**/*.test.ts'],
          pool: 'forks',
          poolOptions: { forks: { singleFork: true } },
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
      './web/vitest.config.ts',
    ],
  },
});
