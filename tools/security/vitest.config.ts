import { projectConfig } from '../../vitest.preset';

export default projectConfig();
