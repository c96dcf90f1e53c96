import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

const natsClient = {
  paths: ['nats'],
  patterns: [{ group: ['@nats-io/*'], message: 'Only libs/middleware talks to the NATS client; use @esp/middleware.' }],
};

const depConstraints = [
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:service', 'type:protocol', 'type:codec', 'type:util'] },
  { sourceTag: 'type:service', onlyDependOnLibsWithTags: ['type:service', 'type:protocol', 'type:codec', 'type:util'] },
  { sourceTag: 'type:protocol', onlyDependOnLibsWithTags: ['type:protocol', 'type:codec', 'type:util'] },
  // codecs depend on nothing but their encoder libraries: no transport, no sockets, no apps
  {
    sourceTag: 'type:codec',
    onlyDependOnLibsWithTags: ['type:codec'],
    bannedExternalImports: ['nats', '@nats-io/*', 'node:net', 'net', 'node:http', 'http', 'node:dgram', 'pino'],
  },
  { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util'] },
  { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:util', 'type:codec', 'type:protocol', 'type:testing'] },
  { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:service', 'type:protocol', 'type:codec', 'type:util', 'type:testing'] },
];

// Each wire format in libs/codecs is a room with its own door (its index.ts): a format imports no other format,
// except FSCMT, whose frames are FSWCU values. See docs/decisions/0008-one-codecs-lib-with-a-room-per-format.md.
const codecFormats = { cheetah: [], fswcu: [], fscmt: ['fswcu'], xmlrpc: [] };
function codecFormatRooms() {
  return Object.entries(codecFormats).map(([format, allowed]) => {
    const others = Object.keys(codecFormats).filter((f) => f !== format && !allowed.includes(f));
    return {
      files: [`libs/codecs/src/${format}/**/*.ts`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            paths: natsClient.paths,
            patterns: [
              ...natsClient.patterns,
              { group: others.flatMap((f) => [`../${f}`, `../${f}/*`, `../../${f}/*`]), message: `The ${format} codec does not use another wire format.` },
            ],
          },
        ],
      },
    };
  });
}

const boundaries = (constraints) => [
  'error',
  { enforceBuildableLibDependency: false, allow: [], banTransitiveDependencies: false, depConstraints: constraints },
];

// tests may also use the test harnesses (real servers, child processes)
const testConstraints = depConstraints.map((c) =>
  c.onlyDependOnLibsWithTags ? { ...c, onlyDependOnLibsWithTags: [...c.onlyDependOnLibsWithTags, 'type:testing'] } : c,
);

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/tmp/**', '**/.nx/**', '**/*.py'] },
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  {
    files: ['**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': boundaries(depConstraints),
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-imports': ['error', natsClient],
    },
  },
  {
    // the one door to the NATS client
    files: ['libs/middleware/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  ...codecFormatRooms(),
  {
    // the shared vitest preset lives at the workspace root, outside any project
    files: ['**/vitest.config.ts'],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
  {
    files: ['**/*.spec.ts', '**/test/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off', '@nx/enforce-module-boundaries': boundaries(testConstraints) },
  },
);
