// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['out/', 'node_modules/', 'e2e/', 'test-results/', 'server/', '*.vsix'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, files: ['**/*.ts'] })),
  {
    files: ['**/*.ts'],
    languageOptions: {
      // Type-aware rules: each file is checked with the types of its tsconfig (src, test).
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      eqeqeq: 'error',
    },
  },
  {
    files: ['scripts/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' } },
  },
  {
    // The pure modules stay free of the editor: they are unit-tested without it.
    files: [
      'src/review/{text,model,decide,shift,layout,protocol,keys,lensText,navigate,changes,testNodes}.ts',
      'src/{ask,approval,coalesce,crash,endpoint,environment,fixes,interpreter,models,python,redact,settings,statusText,targets,undoTask,verdicts,wheels,words}.ts',
    ],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'Pure modules must not import vscode.' }], patterns: ['vscode-languageclient*'] }],
    },
  },
);
