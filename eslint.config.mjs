// ESLint: Next's rules (core web vitals, TypeScript), import order and unused code; formatting is
// Prettier's (eslint-config-prettier turns off the rules it decides).
import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import prettier from "eslint-config-prettier/flat";

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  prettier,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "import/order": ["error", { groups: ["builtin", "external", "internal", "parent", "sibling", "index"] }],
    },
  },
  {
    // Functions named use* outside the React code are not hooks (useEmbedder, useHealthDeadline).
    files: ["lib/**", "scripts/**", "test/**", "e2e/**"],
    ignores: ["lib/client/**"],
    rules: { "react-hooks/rules-of-hooks": "off" },
  },
  globalIgnores([
    ".next/**",
    "node_modules/**",
    "data/**",
    "test-results/**",
    "playwright-report/**",
    "next-env.d.ts",
    "lib/retrieval/exact-kernel-wasm.ts",
  ]),
]);
