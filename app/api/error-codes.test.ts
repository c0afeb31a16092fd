import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";

// Sign-in on, so the upload routes' own access checks answer 401/403; small limits so the
// size refusals need only a few kilobytes. Read once by env().
vi.hoisted(() => {
  process.env.ADMIN_PASSWORD = "error-codes-admin";
  process.env.MAX_REQUEST_BYTES = String(64 * 1024);
  process.env.MAX_FILES_PER_REQUEST = "2";
  process.env.MAX_UPLOAD_BYTES = "2000";
  process.env.MAX_TEXT_CHARS = "1000";
});

import * as search from "@/pages/api/agents/[id]/documents/search";
import { ERROR_STATUS, unavailable, type ErrorCode } from "@/lib/core/errors";
import { route } from "@/lib/http/route";
import { createToken } from "@/lib/db/api-tokens";
import { db } from "@/lib/db/client";
import { EmbeddingError } from "@/lib/embeddings";
import { ChatError } from "@/lib/ask/chat";
import { RerankError } from "@/lib/rerank/errors";
import { RejectedFileError, SIZE_LIMIT_CODES, type RejectionCode } from "@/lib/extract";
import { call, filesForm, LOCAL_PEER } from "@/test/http";
import { ARTICLES, ingest, newAgent } from "@/test/helpers";
import * as agents from "./agents/route";
import * as agent from "./agents/[id]/route";
import * as documents from "./agents/[id]/documents/route";
import * as document from "./agents/[id]/documents/[docId]/route";
import * as preview from "./agents/[id]/documents/preview/route";
import * as evals from "./agents/[id]/evals/route";
import * as run from "./agents/[id]/evals/[runId]/route";
import * as inspect from "./agents/[id]/inspect/route";
import * as pairs from "./agents/[id]/pairs/route";
import * as pair from "./agents/[id]/pairs/[pairId]/route";
import * as toolCalls from "./agents/[id]/tool-calls/route";
import * as uploads from "./agents/[id]/uploads/[jobId]/route";
import * as newUpload from "./agents/[id]/uploads/route";

type Answer = { status: number; body: { error?: { code?: string; message?: string } } | null };

/** Every code answered so far, with its status: the last test checks the map is covered. */
const answered = new Map<string, number>();

function expectError(res: Answer, code: ErrorCode) {
  expect(res.body?.error?.code, JSON.stringify(res.body)).toBe(code);
  expect(res.status, code).toBe(ERROR_STATUS[code]);
  answered.set(code, res.status);
}

let id: string;
let editor: Record<string, string>;
let viewer: Record<string, string>;
beforeAll(async () => {
  id = String(newAgent("error codes").id);
  await ingest(Number(id), "sla.md", ARTICLES.sla);
  editor = { authorization: `Bearer ${createToken("error codes editor", "editor").token}` };
  viewer = { authorization: `Bearer ${createToken("error codes viewer", "viewer").token}` };
});

const oneFile = (name: string, content: string | Uint8Array) => {
  const form = new FormData();
  form.set("file", new Blob([content as BlobPart]), name);
  return form;
};
const previewOf = (name: string, content: string | Uint8Array) =>
  call(preview.POST, { body: oneFile(name, content), headers: editor, params: { id } });

// Every handler that acts on an agent, called for the agent `agentId`.
const agentHandlers: [string, (agentId: string) => Promise<Answer>][] = [
  ["GET /agents/{id}", (a) => call(agent.GET, { method: "GET", headers: editor, params: { id: a } })],
  ["PATCH /agents/{id}", (a) => call(agent.PATCH, { method: "PATCH", json: { name: "renamed" }, headers: editor, params: { id: a } })],
  ["DELETE /agents/{id}", (a) => call(agent.DELETE, { method: "DELETE", headers: editor, params: { id: a } })],
  ["GET /agents/{id}/documents", (a) => call(documents.GET, { method: "GET", headers: editor, params: { id: a } })],
  [
    "POST /agents/{id}/documents",
    (a) => call(documents.POST, { body: filesForm([["a.txt", "text"]]), headers: editor, params: { id: a } }),
  ],
  ["GET /agents/{id}/documents/{docId}", (a) => call(document.GET, { method: "GET", headers: editor, params: { id: a, docId: "1" } })],
  [
    "DELETE /agents/{id}/documents/{docId}",
    (a) => call(document.DELETE, { method: "DELETE", headers: editor, params: { id: a, docId: "1" } }),
  ],
  [
    "POST /agents/{id}/documents/preview",
    (a) => call(preview.POST, { body: oneFile("a.txt", "text"), headers: editor, params: { id: a } }),
  ],
  // A broken body too: the agent is looked up before the body is read.
  ["POST /agents/{id}/documents/search", (a) => call(search.POST, { body: "{", headers: editor, params: { id: a } })],
  ["GET /agents/{id}/evals", (a) => call(evals.GET, { method: "GET", headers: editor, params: { id: a } })],
  ["POST /agents/{id}/evals", (a) => call(evals.POST, { json: {}, headers: editor, params: { id: a } })],
  ["GET /agents/{id}/evals/{runId}", (a) => call(run.GET, { method: "GET", headers: editor, params: { id: a, runId: "1" } })],
  ["POST /agents/{id}/inspect", (a) => call(inspect.POST, { json: { query: "x" }, headers: editor, params: { id: a } })],
  ["GET /agents/{id}/pairs", (a) => call(pairs.GET, { method: "GET", headers: editor, params: { id: a } })],
  ["POST /agents/{id}/pairs", (a) => call(pairs.POST, { json: [], headers: editor, params: { id: a } })],
  ["GET /agents/{id}/pairs/{pairId}", (a) => call(pair.GET, { method: "GET", headers: editor, params: { id: a, pairId: "1" } })],
  [
    "PATCH /agents/{id}/pairs/{pairId}",
    (a) => call(pair.PATCH, { method: "PATCH", json: {}, headers: editor, params: { id: a, pairId: "1" } }),
  ],
  ["DELETE /agents/{id}/pairs/{pairId}", (a) => call(pair.DELETE, { method: "DELETE", headers: editor, params: { id: a, pairId: "1" } })],
  ["GET /agents/{id}/tool-calls", (a) => call(toolCalls.GET, { method: "GET", headers: editor, params: { id: a } })],
  ["GET /agents/{id}/uploads/{jobId}", (a) => call(uploads.GET, { method: "GET", headers: viewer, params: { id: a, jobId: "x" } })],
  [
    "POST /agents/{id}/uploads/{jobId}",
    (a) => call(uploads.POST, { body: filesForm([["a.txt", "text"]]), headers: editor, params: { id: a, jobId: "x" } }),
  ],
  ["POST /agents/{id}/uploads", (a) => call(newUpload.POST, { body: filesForm([["a.txt", "text"]]), headers: editor, params: { id: a } })],
];

describe("agent routes", () => {
  it.each(agentHandlers)("%s answers 404 not_found for an unknown or malformed agent id", async (_name, send) => {
    for (const bad of ["999999", "abc", "0", "1.5", "-1"]) {
      const res = await send(bad);
      expectError(res, "not_found");
      expect(res.body?.error?.message).toMatch(/^Agent .* was not found\.$/);
    }
  });

  it("run the upload routes' access checks before looking at the agent", async () => {
    const res = await call(documents.POST, { body: filesForm([["a.txt", "text"]]), params: { id: "999999" } });
    expectError(res, "unauthorized");
  });

  it("answer 404 for an unknown document, run, pair or upload of a known agent", async () => {
    expectError(await call(document.GET, { method: "GET", headers: editor, params: { id, docId: "999999" } }), "not_found");
    expectError(await call(document.GET, { method: "GET", headers: editor, params: { id, docId: "x" } }), "not_found");
    expectError(await call(run.GET, { method: "GET", headers: editor, params: { id, runId: "999999" } }), "not_found");
    expectError(await call(pair.DELETE, { method: "DELETE", headers: editor, params: { id, pairId: "999999" } }), "not_found");
    expectError(await call(uploads.GET, { method: "GET", headers: viewer, params: { id, jobId: "no-such-job" } }), "not_found");
    expectError(
      await call(uploads.POST, { body: filesForm([["a.txt", "text"]]), headers: editor, params: { id, jobId: "no-such-job" } }),
      "not_found",
    );
  });
});

describe("every error code, through the API", () => {
  it("invalid_json, invalid_request and conflict", async () => {
    expectError(
      await call(search.POST, { body: "{not json", headers: { ...editor, "content-type": "application/json" }, params: { id } }),
      "invalid_json",
    );
    expectError(await call(agents.POST, { body: "", headers: { ...editor, "content-type": "application/json" } }), "invalid_json");
    expectError(await call(search.POST, { json: { query: " " }, headers: editor, params: { id } }), "invalid_request");
    expectError(await call(pairs.GET, { method: "GET", url: "?format=xml", headers: editor, params: { id } }), "invalid_request");
    const name = `Twin ${id}`;
    expect((await call(agents.POST, { json: { name, tools: [] }, headers: editor })).status).toBe(201);
    expectError(await call(agents.POST, { json: { name: name.toUpperCase(), tools: [] }, headers: editor }), "conflict");
  });

  it("the upload routes' access refusals: unauthorized, forbidden, forbidden_origin, forbidden_host, invalid_path", async () => {
    const form = () => filesForm([["a.txt", "text"]]);
    expectError(await call(documents.POST, { body: form(), params: { id } }), "unauthorized");
    expectError(
      await call(documents.POST, { body: form(), headers: { authorization: "Bearer kbi_revoked" }, params: { id } }),
      "unauthorized",
    );
    expectError(await call(documents.POST, { body: form(), headers: viewer, params: { id } }), "forbidden");
    // The upload job routes: a viewer may follow a job, not start one or add to it.
    expectError(await call(newUpload.POST, { body: form(), params: { id } }), "unauthorized");
    expectError(await call(newUpload.POST, { body: form(), headers: viewer, params: { id } }), "forbidden");
    expectError(await call(uploads.POST, { body: form(), headers: viewer, params: { id, jobId: "x" } }), "forbidden");
    expectError(
      await call(documents.POST, { body: form(), headers: { ...editor, origin: "http://evil.example" }, params: { id } }),
      "forbidden_origin",
    );
    const rebound = new Request("http://evil.example/api/agents/1/documents/preview", {
      method: "POST",
      headers: editor,
      body: oneFile("a.txt", "x"),
    });
    const res = await preview.POST(rebound, { params: Promise.resolve({ id }) });
    expectError({ status: res.status, body: await res.json() }, "forbidden_host");
    // A path whose escapes would route otherwise than it reads ("%61" is "a").
    const escaped = new Request("http://localhost/%61pi/agents/1/documents/preview", {
      method: "POST",
      headers: { ...LOCAL_PEER, ...editor },
      body: oneFile("a.txt", "x"),
    });
    const bad = await preview.POST(escaped, { params: Promise.resolve({ id }) });
    expectError({ status: bad.status, body: await bad.json() }, "invalid_path");
  });

  it("forbidden for an agent without the document_search tool", async () => {
    const noTool = String(newAgent("no tool", []).id);
    expectError(await call(search.POST, { json: { query: "support" }, headers: editor, params: { id: noTool } }), "forbidden");
  });

  it("invalid_multipart, request_too_large, too_many_files, and rejected when no file was indexed", async () => {
    expectError(
      await call(preview.POST, { body: "not multipart", headers: { ...editor, "content-type": "text/plain" }, params: { id } }),
      "invalid_multipart",
    );
    expectError(
      await call(documents.POST, { body: filesForm([["big.txt", "a".repeat(100 * 1024)]]), headers: editor, params: { id } }),
      "request_too_large",
    );
    const three = filesForm([
      ["1.txt", "one"],
      ["2.txt", "two"],
      ["3.txt", "three"],
    ]);
    expectError(await call(documents.POST, { body: three, headers: editor, params: { id } }), "too_many_files");
    expectError(await call(documents.POST, { body: filesForm([["run.exe", "MZ"]]), headers: editor, params: { id } }), "rejected");
  });

  it("rejected_* for a refused file, 413 when it is too big in some way", async () => {
    expectError(await previewOf("run.exe", "MZ"), "rejected_unsupported_type");
    expectError(await previewOf("empty.txt", ""), "rejected_empty");
    expectError(await previewOf("fake.pdf", "just text"), "rejected_type_mismatch");
    expectError(await previewOf("cafe.txt", new Uint8Array([0x43, 0x61, 0x66, 0xe9])), "rejected_encoding");
    expectError(await previewOf("big.txt", "a".repeat(3000)), "rejected_too_large");
    expectError(await previewOf("long.md", "a".repeat(1500)), "rejected_too_much_text");
  });

  it("no_pairs and unknown_document", async () => {
    expectError(await call(evals.POST, { json: { k: 1 }, headers: editor, params: { id } }), "no_pairs");
    expect((await call(pairs.POST, { json: [{ query: "support SLA", expected: "sla.md" }], headers: editor, params: { id } })).status).toBe(
      201,
    );
    const [{ id: pairId }] = (await call(pairs.GET, { method: "GET", headers: editor, params: { id } })).body.pairs;
    const res = await call(pair.PATCH, {
      method: "PATCH",
      json: { expected: "missing.md" },
      headers: editor,
      params: { id, pairId: String(pairId) },
    });
    expectError(res, "unknown_document");
  });

  it("invalid_filter and unknown_filter_key, from the search, the inspector and a pair", async () => {
    const search_ = (filter: unknown) => call(search.POST, { json: { query: "support", filter }, headers: editor, params: { id } });
    expectError(await search_({ team: { $regex: "a" } }), "invalid_filter");
    expectError(await search_({ team: "support" }), "unknown_filter_key");
    const inspected = await call(inspect.POST, { json: { query: "x", filter: { $not: {} } }, headers: editor, params: { id } });
    expectError(inspected, "invalid_filter");
    const [{ id: pairId }] = (await call(pairs.GET, { method: "GET", headers: editor, params: { id } })).body.pairs;
    const res = await call(pair.PATCH, {
      method: "PATCH",
      json: { filter: { team: "a" } },
      headers: editor,
      params: { id, pairId: String(pairId) },
    });
    expectError(res, "unknown_filter_key");
  });

  it("embedding_model_mismatch when the agent's chunks were embedded with another model", async () => {
    const mixed = newAgent("mixed models");
    await ingest(mixed.id, "sla.md", ARTICLES.sla);
    db().prepare("UPDATE documents SET embedding_model = 'another-model' WHERE agent_id = ?").run(mixed.id);
    const res = await call(search.POST, { json: { query: "support" }, headers: editor, params: { id: String(mixed.id) } });
    expectError(res, "embedding_model_mismatch");
    expect(res.body?.error?.message).toMatch(/another-model.*npm run reindex/);
  });
});

describe("errors from outside systems, through the same mapper", () => {
  const failing = (err: unknown) => call(route<unknown>("public", async () => Promise.reject(err)));
  afterEach(() => vi.restoreAllMocks());

  it("an unexpected error is a 500 internal whose detail stays in the server log", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const err = new Error("SQLITE_CORRUPT: database disk image is malformed at /srv/kb/data/app.db");
    const res = await failing(err);
    expectError(res, "internal");
    expect(JSON.stringify(res.body)).not.toMatch(/SQLITE|\/srv/);
    expect(log).toHaveBeenCalledWith(expect.any(String), err);
  });

  it("an unreachable Chroma is a 503 vector_store_unavailable without the network detail", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const refused = Object.assign(new Error("connect ECONNREFUSED 10.1.2.3:8000"), { code: "ECONNREFUSED" });
    const res = await failing(new TypeError("fetch failed", { cause: refused }));
    expectError(res, "vector_store_unavailable");
    expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|10\.1\.2\.3/);
    expectError(await failing(unavailable("Chroma is not configured.")), "unavailable");
  });

  it("a failed embedding provider is a 500 embedding_failed", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    expectError(await failing(new EmbeddingError("the API key was refused (401).", "openai", 401)), "embedding_failed");
  });

  it("a failed chat model is a 500 chat_failed", async () => {
    expectError(await failing(new ChatError("The chat model test-chat failed to grade the retrieved chunks (500).")), "chat_failed");
  });

  it("a failed reranker is a 502 reranker_failed", async () => {
    const err = new RerankError("The reranker at http://127.0.0.1:8080/rerank answered 500; the details are in the server log.");
    expectError(await failing(err), "reranker_failed");
  });

  it("every file refusal has its own code, 413 exactly for the size limits", async () => {
    const codes = Object.keys(ERROR_STATUS).filter((c) => c.startsWith("rejected_"));
    for (const code of codes) {
      const rejection = code.slice("rejected_".length) as RejectionCode;
      expectError(await failing(new RejectedFileError(rejection, `"a.txt" was refused.`)), code as ErrorCode);
      expect(ERROR_STATUS[code as ErrorCode], code).toBe(SIZE_LIMIT_CODES.includes(rejection) ? 413 : 422);
    }
  });
});

/** Codes only answered with sign-in off (this file signs in), checked with their status there. */
const ANSWERED_WITH_SIGN_IN_OFF = ["sign_in_required", "starting"]; // lib/auth/gate-open.test.ts

// Runs last: a code in the map that no request above answered with is a code nobody checks.
it("every code in ERROR_STATUS was answered, with its status", () => {
  expect([...answered.keys(), ...ANSWERED_WITH_SIGN_IN_OFF].sort()).toEqual(Object.keys(ERROR_STATUS).sort());
});
