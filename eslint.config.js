// Lint rules that catch real mistakes, not style (the formatter owns style: .prettierrc.json). Type-aware, so a
// promise nobody awaits or catches is found; unused code is found by tsc (noUnusedLocals) and by the rule below for
// what tsc lets through (unused parameters' siblings, exports are left to the reader).
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "build/**", "node_modules/**", "reports/**", ".stryker-tmp/**", "coverage/**"] },
  {
    // The tests too: a floating promise there is an assertion that never ran (issue 47).
    files: ["src/**/*.ts", "test/**/*.ts"],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { project: ["./tsconfig.test.json"], tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "@typescript-eslint": tseslint.plugin },
    rules: {
      // A promise left floating loses its rejection: an unhandled rejection ends memleak with a stack trace.
      "@typescript-eslint/no-floating-promises": "error",
      // A promise where a value is expected (if (promise), a void callback that returns one) is always truthy.
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { arguments: false } }],
      "@typescript-eslint/no-unused-vars": ["error", { args: "none", ignoreRestSiblings: true, caughtErrors: "none" }],
      "@typescript-eslint/await-thenable": "error",
      "no-unreachable": "error",
      "no-fallthrough": "error",
      "no-self-compare": "error",
      "no-dupe-else-if": "error",
      "no-constant-binary-expression": "error",
      "no-unsafe-finally": "error",
      // Control characters in a pattern are meant only where a comment says so (terminal escapes are stripped on purpose).
      "no-control-regex": "error",
    },
  },
  {
    // Tests look for terminal escapes and control characters on purpose (that a hostile name is escaped, that NO_COLOR
    // leaves none): the patterns are what they assert.
    files: ["test/**/*.ts"],
    rules: { "no-control-regex": "off" },
  },
);
