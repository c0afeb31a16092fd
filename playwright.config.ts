import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";

// The app runs on its embedded defaults with a fresh data directory per run.
// Set once here; worker processes inherit it from the main process.
process.env.E2E_DATA_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), "kb-e2e-"));
const port = Number(process.env.E2E_PORT ?? 3100);
// The sources spec serves its help-centre site on this port; the app may fetch 127.0.0.1 on it only.
process.env.E2E_SITE_PORT ??= String(port + 1);
const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export default defineConfig({
  testDir: "e2e",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    trace: "retain-on-failure",
    viewport: { width: 1280, height: 800 },
  },
  projects: [
    {
      name: "chromium",
      use: {
        ...devices["Desktop Chrome"],
        viewport: { width: 1280, height: 800 },
        launchOptions: {
          // Playwright's own browser cannot be downloaded here; Debian's chromium is used.
          executablePath: fs.existsSync(chromium) ? chromium : undefined,
          args: [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
          ],
        },
      },
    },
  ],
  webServer: {
    command: "node scripts/start.mjs",
    url: `http://127.0.0.1:${port}/api/health`,
    timeout: 600_000,
    reuseExistingServer: false,
    stdout: "pipe",
    stderr: "pipe",
    env: {
      PORT: String(port),
      DATA_DIR: process.env.E2E_DATA_DIR,
      NEXT_TELEMETRY_DISABLED: "1",
      KB_DEMO: "1",
      // The sources spec syncs a help-centre site it serves on 127.0.0.1, without pacing.
      FETCH_ALLOW_HOSTS: `127.0.0.1:${process.env.E2E_SITE_PORT}`,
      FETCH_RATE_PER_S: "0",
    },
  },
});
