import { defineConfig } from "vitest/config";
import os from "node:os";
import path from "node:path";

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
    // thousands of chunks, Chroma killed and restarted) take 25-35 s on two busy cores.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Most test time is spent waiting on Chroma and SQLite, not computing: four forks on two
    // cores run the suite in 140 s where the default took 250 s.
    maxWorkers: Math.max(2, 2 * os.availableParallelism()),
  },
});
