import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ingest, newAgent } from "../../test/helpers";
import { changeChunk, documentCuration } from "../ingest/curate";
import { stageDocumentRemoval } from "../ingest/drafts";
import { keywordRanking } from "../retrieval/keyword";
import { embedder } from "../embeddings/configured";
import { db } from "./client";
import { findDocument, listDocuments } from "./documents";
import { createDraft, discardDraft, draftDocuments, listDrafts, publishDraft } from "./drafts";

const root = path.resolve(import.meta.dirname, "../..");

/** Runs a publish or a discard in another process that is killed inside its transaction. */
function killedIn(what: "publish" | "discard", agentId: number, draftId: number) {
  const run = spawnSync(
    process.execPath,
    [
      "--conditions=react-server",
      "--import",
      "tsx",
      path.join(root, "test/kill-in-transaction.ts"),
      what,
      String(agentId),
      String(draftId),
    ],
    { cwd: root, env: process.env, encoding: "utf8", timeout: 120_000 },
  );
  expect({ signal: run.signal, stdout: run.stdout, stderr: run.stderr.slice(0, 400) }).toMatchObject({ signal: "SIGKILL", stdout: "" });
}

/** What a publish or a discard changes: the agent's rows, its drafts, its staged versions, its keyword ranking. */
function state(agentId: number) {
  return {
    documents: db().prepare("SELECT id, filename, status, draft_id, base_id FROM documents WHERE agent_id = ? ORDER BY id").all(agentId),
    drafts: listDrafts(agentId).map((d) => [d.id, d.name]),
    staged: listDrafts(agentId).flatMap((d) => draftDocuments(d.id).map((v) => [v.id, v.status])),
    keywords: keywordRanking(agentId, embedder().model, "reset button pin invoices", 10),
  };
}

describe("the app killed in the middle of a publish or a discard", () => {
  it("leaves the agent as before; the publish or discard done again then applies in full", async () => {
    const agent = newAgent("killed mid-publish");
    const router = await ingest(agent.id, "router.md", "Router reset. Hold the reset button for ten seconds until the lights blink.");
    const billing = await ingest(agent.id, "billing.md", "Billing. Invoices are issued on the first day of each billing period.");
    const first = documentCuration(findDocument(agent.id, router.document_id!)!).chunks[0];
    const kept = createDraft(agent.id, "publish");
    const staged = await changeChunk(agent.id, first.id, { text: "Router reset. Press the reset button with a pin." }, null, {
      draftId: kept.id,
    });
    await stageDocumentRemoval(agent.id, kept.id, billing.document_id!);
    const dropped = createDraft(agent.id, "discard");
    await changeChunk(agent.id, first.id, { questions: ["factory reset"] }, null, { draftId: dropped.id });

    const before = state(agent.id);
    killedIn("publish", agent.id, kept.id);
    expect(state(agent.id)).toEqual(before);
    killedIn("discard", agent.id, dropped.id);
    expect(state(agent.id)).toEqual(before);

    // Done again, in full.
    publishDraft(agent.id, kept.id);
    discardDraft(agent.id, dropped.id);
    expect(listDocuments(agent.id).map((d) => [d.id, d.status])).toEqual([[staged.document_id, "ready"]]);
    expect(listDrafts(agent.id)).toEqual([]);
    expect(keywordRanking(agent.id, embedder().model, "pin", 5).map((h) => h.document_id)).toEqual([staged.document_id]);
  }, 180_000);
});
