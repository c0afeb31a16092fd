import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { inject } from "vitest";

// Every test file gets its own SQLite file and its own Chroma collections.
process.env.CHROMA_URL = inject("chromaUrl");
process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "kb-data-"));
fs.symlinkSync(inject("sharedCacheDir"), path.join(process.env.DATA_DIR, "cache"));
process.env.CHROMA_COLLECTION_PREFIX = `t${randomBytes(4).toString("hex")}`;
process.env.EMBEDDING_PROVIDER = "local";
process.env.KB_DEMO = "0";
