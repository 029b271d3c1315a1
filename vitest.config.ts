import { defineConfig } from 'vitest/config';

// Scenarios that mostly wait on real time (an outage of a minute, escalation minutes, a storm's
// hold): they run one at a time beside the other scenarios, not after them, so their idle minutes
// overlap the CPU-bound ones on a 2-core machine.
const WAITING_SCENARIOS = ['tests/e2e/pipeline.test.ts', 'tests/e2e/escalation.test.ts', 'tests/e2e/storms.test.ts'];

// One `npm test` runs every workspace: node projects for servers/agent/cli/e2e, jsdom for web.
export default defineConfig({
  test: {
    // Two at a time (vitest's default is cores - 1: one here), so a waiting scenario overlaps the rest.
    maxWorkers: 2,
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
          exclude: WAITING_SCENARIOS,
          pool: 'forks',
          poolOptions: { forks: { singleFork: true } },
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          name: 'e2e-waits',
          environment: 'node',
          include: WAITING_SCENARIOS,
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
