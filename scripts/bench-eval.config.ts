import path from "node:path";
import { defineConfig } from "vitest/config";

const root = path.resolve(import.meta.dirname, "..");

// `npm run bench:eval`: the benchmark runs under Vitest for the same real Chroma and throwaway
// SQLite as the tests (global setup and setup file of vitest.config.ts), but on its own.
export default defineConfig({
  resolve: {
    alias: {
      "@": root,
      "server-only": path.join(root, "test/server-only-stub.ts"),
    },
  },
  test: {
    root,
    include: ["scripts/bench-eval.run.ts"],
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/setup.ts"],
    testTimeout: 1_800_000,
    hookTimeout: 120_000,
    pool: "forks",
  },
});
