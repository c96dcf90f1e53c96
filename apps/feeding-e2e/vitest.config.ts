import { configDefaults } from 'vitest/config';
import { projectConfig } from '../../vitest.preset';

/**
 * Suites that run `npm start` itself, with the nats-server the launcher starts as users run it: they do not use
 * the test harness's servers, so ESP_TEST_NATS=container changes nothing in them. The container pass
 * (`npm run test:containers`) leaves them to the binary pass of `npm test`, which runs every file.
 */
const LAUNCHER_SUITES = ['test/session-quota.e2e.spec.ts', 'test/ssr-large-batches.e2e.spec.ts'];

export default projectConfig({
  testTimeout: 180_000,
  hookTimeout: 120_000,
  fileParallelism: false,
  ...(process.env['ESP_TEST_NATS'] === 'container' ? { exclude: [...configDefaults.exclude, ...LAUNCHER_SUITES] } : {}),
});
