import { projectConfig } from '../../vitest.preset';

export default projectConfig({ testTimeout: 180_000, hookTimeout: 120_000, fileParallelism: false });
