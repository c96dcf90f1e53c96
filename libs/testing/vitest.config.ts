import { configDefaults } from 'vitest/config';
import { projectConfig } from '../../vitest.preset';

// *.container.spec.ts prove container mode: they run with ESP_TEST_NATS=container (npm run test:containers), the
// other specs without it.
const containerMode = process.env['ESP_TEST_NATS'] === 'container';

export default projectConfig(
  containerMode ? { include: ['test/**/*.container.spec.ts'] } : { exclude: [...configDefaults.exclude, '**/*.container.spec.ts'] },
);
