import { describe, expect, it } from "vitest";
import { ARTICLES, ingest, newAgent } from "@/test/helpers";
import { documentSearchTool, retrieve } from "@/lib/retrieval/retrieve";
import { askAgent } from "@/lib/ask/ask";
import { inspectQuery } from "@/lib/retrieval/inspect";
import { updateAgent } from "@/lib/db/agents";
import { listPairs } from "@/lib/db/pairs";
import { pruneToolCalls, recentToolCalls } from "@/lib/db/tool-calls";
import { addPair } from "@/lib/evaluation/labeled-pairs";
import { embedder } from "@/lib/embeddings/configured";
import { unitQuery } from "@/lib/retrieval/exact-kernel";
import type { RetrievalTrace } from "@/lib/core/trace";
import { changedSinceLastQuestion } from "@/lib/db/questions";
import { db } from "@/lib/db/client";
import { questionKey } from "../core/normalize";
import { listQuestions } from "./list";
import { triageQuestion } from "./triage";
import { groupQuestions } from "./group";

async function agentWithArticles(name = "Questions") {
  const agent = newAgent(name);
  for (const [file, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${file}.md`, text);
  return agent;
}
const texts = async (agentId: number) => (await listQuestions(agentId, {})).questions.map((q) => q.text);

describe("the agent's questions", () => {
  it("normalises case, spacing and punctuation, in any script", () => {
    expect(questionKey("  How do I   reset my PASSWORD?! ")).toBe("how do i reset my password");
    expect(questionKey("Wie setze ich mein Passwort zurück?")).toBe("wie setze ich mein passwort zurück");
    expect(questionKey("?!")).toBe("");
  });

  it("is one row per question asked again, the most asked first, with what it returned", async () => {
    const agent = await agentWithArticles();
    await documentSearchTool(agent.id, "How do I reset my password?", 3);
    await documentSearchTool(agent.id, "how do i   reset my PASSWORD", 3);
    await documentSearchTool(agent.id, "When is my invoice issued?", 3);
    const { questions } = await listQuestions(agent.id, {});
    expect(questions.map((q) => [q.text, q.asked, q.wordings])).toEqual([
      ["How do I reset my password?", 2, 1],
      ["When is my invoice issued?", 1, 1],
    ]);
    expect(questions[0]).toMatchObject({ status: "open", refused: 0, latest: { tool: "document_search", outcome: "answered" } });
    expect(questions[0].top_documents[0].filename).toBe("password.md");
    expect(questions[0].closest).toMatchObject({ filename: "password.md" });
    expect(questions[0].best_distance).toBeCloseTo(questions[0].top_documents[0].score, 6);
  });

  it("groups another wording within the threshold with the first, and keeps one past it apart", async () => {
    const first = "How do I reset my password?";
    const other = "password reset steps";
    const [a, b] = (await embedder().embed([first, other])).map(unitQuery);
    const distance = 1 - a.reduce((s, v, i) => s + v * b[i], 0);
    const within = await agentWithArticles("Within");
    const past = await agentWithArticles("Past");
    for (const agent of [within, past]) {
      await documentSearchTool(agent.id, first, 3);
      await documentSearchTool(agent.id, other, 3);
    }
    await groupQuestions(within.id, distance + 1e-4);
    await groupQuestions(past.id, distance - 1e-4);
    expect((await listQuestions(within.id, {})).questions.map((q) => [q.text, q.asked, q.wordings])).toEqual([[first, 2, 2]]);
    expect((await texts(past.id)).sort()).toEqual([first, other].sort());
    // A later wording joins the group it was grouped with, without grouping again.
    await documentSearchTool(within.id, "PASSWORD reset steps!", 3);
    expect((await listQuestions(within.id, {})).questions.map((q) => [q.asked, q.wordings])).toEqual([[3, 2]]);
  });

  it("lists the agent's own searches and asks, not the inspector's tries, nor another agent's", async () => {
    const agent = await agentWithArticles();
    const other = await agentWithArticles("Other");
    await inspectQuery(agent.id, "refund to my card", 3);
    await askAgent(agent.id, "How long does a refund take?", 3);
    await documentSearchTool(other.id, "invoice pdf", 3);
    const { questions } = await listQuestions(agent.id, {});
    expect(questions.map((q) => q.text)).toEqual(["How long does a refund take?"]);
    expect(questions[0].latest).toMatchObject({ tool: "ask", outcome: "answered" });
    const [theirs] = (await listQuestions(other.id, {})).questions;
    expect(() => triageQuestion(agent.id, theirs.id, { action: "gap" })).toThrow(/not found/);
  });

  it("keeps what a search returned and whether the cut refused it", async () => {
    const agent = await agentWithArticles();
    const probe: RetrievalTrace[] = [];
    await retrieve(agent.id, ["connect slack to the help desk"], { topK: 3, trace: probe });
    updateAgent(agent.id, { cut: { maxDistance: probe[0].best! - 0.01, model: embedder().model } });
    await documentSearchTool(agent.id, "connect slack to the help desk", 3);
    const [call] = recentToolCalls(agent.id, 1);
    const trace = JSON.parse(call.retrieval!) as RetrievalTrace;
    expect(trace).toMatchObject({ model: embedder().model, mode: "vector", top_k: 3, results: [], best: probe[0].best });
    expect(trace.nearest?.filename).toBe(probe[0].nearest?.filename);
    expect(call.refused).toBe(1);
    const [q] = (await listQuestions(agent.id, {})).questions;
    expect(q).toMatchObject({ refused: 1, top_documents: [], latest: { outcome: "refused" } });
    expect(q.closest?.filename).toBe(probe[0].nearest?.filename);
  });

  it("labels a question as a pair from the log; the same pair typed in before is reused", async () => {
    const agent = await agentWithArticles();
    await documentSearchTool(agent.id, "forgot my password", 3);
    await documentSearchTool(agent.id, "invoice as pdf", 3);
    const [forgot, invoice] = (await listQuestions(agent.id, {})).questions.sort((a, b) => a.id - b.id);
    const labeled = triageQuestion(agent.id, forgot.id, { action: "label", expected: "password.md" });
    expect(labeled.group.status).toBe("labeled");
    expect(labeled.pair).toMatchObject({
      query: "forgot my password",
      expected_filename: "password.md",
      source: "log",
      status: "accepted",
    });

    const typed = addPair(agent.id, { query: "invoice as pdf", expected: "invoices.md", answerable: true, note: null });
    expect((await listQuestions(agent.id, { status: "labeled" })).questions.map((q) => q.id).sort()).toEqual(
      [forgot.id, invoice.id].sort(),
    );
    triageQuestion(agent.id, invoice.id, { action: "reopen" });
    expect(triageQuestion(agent.id, invoice.id, { action: "label", expected: "invoices.md" }).pair!.id).toBe(typed.id);
    expect(
      listPairs(agent.id)
        .map((p) => p.source)
        .sort(),
    ).toEqual(["log", "manual"]);
  });

  it("refuses a label naming no document of the agent, and changes nothing", async () => {
    const agent = await agentWithArticles();
    await documentSearchTool(agent.id, "forgot my password", 3);
    const [q] = (await listQuestions(agent.id, {})).questions;
    expect(() => triageQuestion(agent.id, q.id, { action: "label", expected: "nowhere.md" })).toThrow(/No indexed document "nowhere.md"/);
    expect(listPairs(agent.id)).toEqual([]);
    expect((await listQuestions(agent.id, {})).questions[0].status).toBe("open");
  });

  it("marks unanswerable, gap and ignored, and reopens", async () => {
    const agent = await agentWithArticles();
    await documentSearchTool(agent.id, "do you sell gift cards", 3);
    const [q] = (await listQuestions(agent.id, {})).questions;
    expect(triageQuestion(agent.id, q.id, { action: "unanswerable" }).pair).toMatchObject({ expected_filename: "", source: "log" });
    for (const [action, status] of [
      ["gap", "gap"],
      ["ignore", "ignored"],
      ["reopen", "open"],
    ] as const) {
      expect(triageQuestion(agent.id, q.id, { action }).group.status).toBe(status);
      expect((await listQuestions(agent.id, { status })).questions.map((x) => x.id)).toEqual([q.id]);
    }
  });

  it("filters by words and by date", async () => {
    const agent = await agentWithArticles();
    await documentSearchTool(agent.id, "forgot my password", 3);
    await documentSearchTool(agent.id, "invoice as pdf", 3);
    expect((await listQuestions(agent.id, { q: "PASSWORD" })).questions.map((q) => q.text)).toEqual(["forgot my password"]);
    expect((await listQuestions(agent.id, { since: new Date(Date.now() + 60_000).toISOString() })).questions).toEqual([]);
    expect((await listQuestions(agent.id, { q: "nothing like it" })).empty_reason).toBe("No question matches these filters.");
  });

  it("keeps the question text out of the log when the agent does not log questions, and says why the tab is empty", async () => {
    const agent = await agentWithArticles();
    updateAgent(agent.id, { log_questions: false });
    await documentSearchTool(agent.id, "forgot my password", 3);
    const [call] = recentToolCalls(agent.id, 1);
    expect(JSON.parse(call.input)).toEqual({ top_k: 3 });
    expect(call.question_key).toBeNull();
    const list = await listQuestions(agent.id, {});
    expect(list).toMatchObject({ questions: [], logging: false });
    expect(list.empty_reason).toMatch(/does not log its questions/);
  });

  it("says when the agent's documents or settings changed after its latest question (what a replay would show)", async () => {
    const agent = await agentWithArticles();
    expect(changedSinceLastQuestion(agent.id)).toBeNull(); // nothing asked yet
    await documentSearchTool(agent.id, "forgot my password", 3);
    const at = (day: number) => `2030-01-0${day}T00:00:00.000Z`;
    db().prepare("UPDATE tool_calls SET created_at = ? WHERE agent_id = ?").run(at(2), agent.id);
    db().prepare("UPDATE agents SET updated_at = ? WHERE id = ?").run(at(1), agent.id);
    expect(changedSinceLastQuestion(agent.id)).toBeNull();
    db().prepare("UPDATE documents SET updated_at = ? WHERE id = (SELECT MIN(id) FROM documents WHERE agent_id = ?)").run(at(3), agent.id);
    expect(changedSinceLastQuestion(agent.id)).toEqual({ at: at(3), what: "documents" });
    db().prepare("UPDATE agents SET updated_at = ? WHERE id = ?").run(at(4), agent.id);
    expect(changedSinceLastQuestion(agent.id)).toEqual({ at: at(4), what: "settings" });
  });

  it("follows the tool-call retention: a question whose calls are gone goes, a pair made from it stays", async () => {
    const agent = await agentWithArticles();
    await documentSearchTool(agent.id, "forgot my password", 3);
    const [q] = (await listQuestions(agent.id, {})).questions;
    triageQuestion(agent.id, q.id, { action: "label", expected: "password.md" });
    await documentSearchTool(agent.id, "invoice as pdf", 3);
    expect(pruneToolCalls(agent.id, { retentionDays: 30, maxPerAgent: 1 })).toBe(1);
    expect(await texts(agent.id)).toEqual(["invoice as pdf"]);
    expect(() => triageQuestion(agent.id, q.id, { action: "gap" })).toThrow(/not found/);
    expect(listPairs(agent.id).map((p) => p.query)).toEqual(["forgot my password"]);
  });
});
