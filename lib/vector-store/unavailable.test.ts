import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ChromaConnectionError, ChromaNotFoundError, ChromaServerError } from "chromadb";
import { startChroma } from "../../scripts/chroma-server.mjs";

// This file runs its own Chroma so it can stop (SIGSTOP) and kill it without touching the
// one the other test files share. The app is pointed at it before any lib module loads.

// Longer than the health check's own 3 s deadline, so each shows on its own; not the default, so
// the setting is seen to be used; and long enough that a live Chroma on a busy machine (this
// file's ingest, the search once it resumes) answers within it.
const TIMEOUT_MS = 12_000;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kb-chroma-down-"));
const chroma = await startChroma({ dataDir: dir, restart: false });
const pid = chroma.pid()!;
process.env.CHROMA_URL = chroma.url;
process.env.CHROMA_TIMEOUT_MS = String(TIMEOUT_MS);
// Searches served by Chroma's index (exact ranking off): what a search does when Chroma fails.
// With exact ranking a search does not ask Chroma (lib/ingest/faults.test.ts shows it answering).
process.env.EXACT_MAX_CHUNKS = "0";

const { checkHealth } = await import("../index-upkeep/health");
const { searchAgentDocuments } = await import("../retrieval/retrieve");
const { isVectorStoreUnavailable } = await import("./client");
const { ChromaNotServingError, ChromaTimeoutError } = await import("./fetch");
const { toErrorResponse } = await import("../http/route");
const { EmbeddingError } = await import("../embeddings");
const { ingest, newAgent } = await import("../../test/helpers");
const { call } = await import("../../test/http");
const { createPair } = await import("../db/pairs");
const { startEvaluation } = await import("../evaluation/run");
const { getRun } = await import("../db/eval-runs");
const healthRoute = await import("../../app/api/health/route");
const searchRoute = await import("@/pages/api/agents/[id]/documents/search");

afterAll(async () => {
  try {
    process.kill(pid, "SIGCONT");
  } catch {
    // already gone
  }
  await chroma.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const agent = newAgent("chroma down");
await ingest(agent.id, "lamps.txt", "The blue lamp needs a new bulb every two years.");

/** SIGSTOP, then wait until every thread is stopped: under load the group stop can lag a request. */
async function hang() {
  process.kill(pid, "SIGSTOP");
  const state = (task: string) => fs.readFileSync(`/proc/${pid}/task/${task}/stat`, "utf8").replace(/^.*\) /s, "")[0];
  await expect.poll(() => fs.readdirSync(`/proc/${pid}/task`).every((t) => state(t) === "T"), { timeout: 20_000 }).toBe(true);
}

/**
 * What `work` settled with, value or error. How long it took is not asserted: a call that hangs
 * runs into the test's timeout, and a deadline shows as the reason in the error.
 */
function settled<T>(work: () => Promise<T>): Promise<T | unknown> {
  return work().catch((err: unknown) => err);
}

const chromadbText = /CORS|Failed to connect|chromadb|browser/i;

async function expect503(err: unknown) {
  expect(isVectorStoreUnavailable(err)).toBe(true);
  const res = toErrorResponse(err);
  expect(res.status).toBe(503);
  const text = await res.text();
  expect(JSON.parse(text).error.code).toBe("vector_store_unavailable");
  expect(text).not.toMatch(chromadbText);
}

async function searchViaRoute() {
  return call(searchRoute.POST, { json: { query: "blue lamp", top_k: 3 }, params: { id: String(agent.id) } });
}

describe("a hung Chroma (process stopped, socket still open)", () => {
  it("health answers within seconds, naming the deadline", async () => {
    await hang();
    try {
      // Its own 3 s deadline, not CHROMA_TIMEOUT_MS (12 s here), is what ends the wait.
      const health = await checkHealth();
      expect(health).toMatchObject({ ok: false, chroma: { ok: false, error: "Chroma did not answer within 3 s" }, embedder: { ok: true } });

      const res = await healthRoute.GET();
      expect(res.status).toBe(503);
    } finally {
      process.kill(pid, "SIGCONT");
    }
  });

  it("a search gives up after CHROMA_TIMEOUT_MS with a 503, and works again once Chroma resumes", async () => {
    await hang();
    try {
      const err = await settled(() => searchAgentDocuments(agent.id, "blue lamp", 3));
      // The request's own deadline ran out: it waited CHROMA_TIMEOUT_MS, then gave up.
      expect(err).toBeInstanceOf(ChromaTimeoutError);
      expect(err).toMatchObject({ timeoutMs: TIMEOUT_MS, message: "Chroma did not answer within 12 s" });
      await expect503(err);

      const res = await searchViaRoute();
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: { code: "vector_store_unavailable", message: expect.any(String) } });
      expect(JSON.stringify(res.body)).not.toMatch(chromadbText);
    } finally {
      process.kill(pid, "SIGCONT");
    }
    const results = await searchAgentDocuments(agent.id, "blue lamp", 3);
    expect(results.map((r) => r.filename)).toEqual(["lamps.txt"]);
  });
});

describe("a dead Chroma (connection refused)", () => {
  it("is the same 503 at once, without waiting for the timeout", async () => {
    process.kill(pid, "SIGKILL");
    await expect
      .poll(
        () =>
          fetch(`${chroma.url}/api/v2/heartbeat`).then(
            () => "up",
            () => "down",
          ),
        { timeout: 20_000 },
      )
      .toBe("down");

    // The connection failed (refused, or a kept-alive one reset): that is the reason, not a deadline waited for.
    const err = await settled(() => searchAgentDocuments(agent.id, "blue lamp", 3));
    expect(err).not.toBeInstanceOf(ChromaTimeoutError);
    expect(err).toBeInstanceOf(ChromaConnectionError);
    expect((err as Error).message).toMatch(/^Chroma is not reachable at /);
    await expect503(err);

    const res = await searchViaRoute();
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("vector_store_unavailable");
    expect(JSON.stringify(res.body)).not.toMatch(chromadbText);

    expect(await checkHealth()).toMatchObject({
      ok: false,
      chroma: { ok: false, error: expect.stringMatching(/^Chroma is not reachable at /) },
    });
  });

  it("fails an evaluation run with a message a user can act on", async () => {
    createPair(agent.id, { query: "blue lamp bulb", expected_filename: "lamps.txt" });
    const { runId, done } = startEvaluation(agent.id, 3);
    await expect503(await done.catch((err: unknown) => err));
    const run = getRun(agent.id, runId);
    expect(run.status).toBe("failed");
    expect(run.error).toMatch(/^The vector store \(Chroma\) did not answer/);
    expect(run.error).not.toMatch(chromadbText);
  });
});

describe("isVectorStoreUnavailable", () => {
  it("tells Chroma not serving from a request Chroma rejected or an embedding failure", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:8000"), { code: "ECONNREFUSED" });
    expect(isVectorStoreUnavailable(new TypeError("fetch failed", { cause: refused }))).toBe(true);
    expect(isVectorStoreUnavailable(new DOMException("The operation was aborted due to timeout", "TimeoutError"))).toBe(true);
    expect(isVectorStoreUnavailable(new ChromaNotServingError(503, "Backoff and retry"))).toBe(true);
    expect(isVectorStoreUnavailable(new ChromaServerError("502: Bad Gateway"))).toBe(true);

    expect(isVectorStoreUnavailable(new ChromaServerError("Error executing plan: record not found"))).toBe(false);
    expect(isVectorStoreUnavailable(new ChromaNotFoundError("The requested resource could not be found"))).toBe(false);
    expect(isVectorStoreUnavailable(new EmbeddingError("OpenAI is not reachable", "openai", undefined, { cause: refused }))).toBe(false);
    expect(isVectorStoreUnavailable(new Error("something else"))).toBe(false);
  });
});
