import { fileURLToPath } from 'node:url';
import tsconfigPaths from 'vite-tsconfig-paths';
import { defineConfig, type UserConfig } from 'vitest/config';

const workspaceRoot = fileURLToPath(new URL('.', import.meta.url));

/** One vitest configuration for every project: @esp/* path aliases, node env, real-server friendly timeouts. */
export function projectConfig(overrides: UserConfig['test'] = {}): UserConfig {
  return defineConfig({
    plugins: [tsconfigPaths({ root: workspaceRoot, projects: ['tsconfig.base.json'] })],
    test: {
      environment: 'node',
      include: ['src/**/*.spec.ts', 'test/**/*.spec.ts'],
      testTimeout: 30_000,
      hookTimeout: 60_000,
      pool: 'forks',
      reporters: process.env.CI ? ['default'] : ['default'],
      ...overrides,
    },
  });
}
