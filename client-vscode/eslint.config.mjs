// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['out/', 'node_modules/', 'e2e/', 'test-results/', '*.vsix'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      eqeqeq: 'error',
    },
  },
  {
    // The pure modules stay free of the editor: they are unit-tested without it.
    files: ['src/review/{text,model,decide,shift,layout,protocol}.ts', 'src/{ask,coalesce,interpreter,python,redact,settings,statusText,words}.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'Pure modules must not import vscode.' }], patterns: ['vscode-languageclient*'] }],
    },
  },
);
