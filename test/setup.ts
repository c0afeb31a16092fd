import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, inject } from "vitest";

// Every test file gets its own SQLite file and its own Chroma collections.
process.env.CHROMA_URL = inject("chromaUrl");
// The tenant and database global-setup created (KB_TEST_CHROMA_TENANT/_DATABASE), or Chroma's
// defaults: never ones from the developer's shell, which the test server does not have.
// Set here, before any lib code runs, so lib/env.mjs's cached env() sees them.
const tenant = inject("chromaTenant");
const database = inject("chromaDatabase");
if (tenant && database) {
  process.env.CHROMA_TENANT = tenant;
  process.env.CHROMA_DATABASE = database;
} else {
  delete process.env.CHROMA_TENANT;
  delete process.env.CHROMA_DATABASE;
}
const dataDir = (process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "kb-data-")));
// Removed with the file's last test (an open SQLite handle keeps working on the unlinked file);
// KB_KEEP_TEST_DATA=1 keeps it to look at.
afterAll(() => {
  if (process.env.KB_KEEP_TEST_DATA !== "1") fs.rmSync(dataDir, { recursive: true, force: true });
});
fs.symlinkSync(inject("sharedCacheDir"), path.join(process.env.DATA_DIR, "cache"));
process.env.CHROMA_COLLECTION_PREFIX = `t${randomBytes(4).toString("hex")}`;
process.env.EMBEDDING_PROVIDER = "local";
process.env.KB_DEMO = "0";
