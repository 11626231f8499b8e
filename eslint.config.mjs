// ESLint: correctness rules for every JS module of the project; layout is
// Prettier's (eslint-config-prettier turns off the rules it owns).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

export default [
  {
    ignores: [
      'build/**',
      'dist/**',
      'node_modules/**',
      'test-artifacts/**',
      'coverage/**',
      'examples/vite-app/dist/**',
    ],
  },
  js.configs.recommended,
  prettier,
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: 'module',
      globals: { ...globals.browser, ...globals.node, ...globals.worker },
    },
    rules: {
      'no-unused-vars': ['error', { args: 'none', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
  {
    files: ['tests/**/*.{js,mjs}'],
    languageOptions: { globals: { ...globals.jest } },
  },
  {
    // One Chromium for every script and test: the one scripts/setup.sh installs, named in scripts/chromium.mjs.
    files: ['**/*.{js,mjs,cjs}'],
    ignores: ['scripts/chromium.mjs'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'Literal[value=/^\\/usr\\/bin\\/chrom/]',
          message:
            'Launch CHROMIUM with CHROMIUM_ARGS from scripts/chromium.mjs (the browser scripts/setup.sh installs).',
        },
      ],
    },
  },
];
