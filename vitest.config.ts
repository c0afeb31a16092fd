import os from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      "@": path.resolve(import.meta.dirname),
      // `server-only` throws outside React Server Components; tests run lib/ directly.
      "server-only": path.resolve(import.meta.dirname, "test/server-only-stub.ts"),
    },
  },
  test: {
    include: ["lib/**/*.test.ts", "app/**/*.test.ts", "scripts/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/setup.ts"],
    // Generous: a timeout only bounds a test that hangs; the slowest tests (a sparse graph of
    // thousands of chunks, Chroma killed and restarted) take a fraction of it on two busy cores
    // (measured in docs/performance.md, 'Figures behind the code's choices').
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Most test time is spent waiting on Chroma and SQLite, not computing: twice as many forks as
    // cores run the suite much faster than the default (docs/performance.md, 'Figures behind the
    // code's choices').
    maxWorkers: Math.max(2, 2 * os.availableParallelism()),
  },
});
