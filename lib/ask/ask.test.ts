import { describe, expect, it } from "vitest";
import * as askApi from "@/app/api/agents/[id]/ask/route";
import * as agentApi from "@/app/api/agents/[id]/route";
import { recentRefusals, recentToolCalls } from "../db/tool-calls";
import { ARTICLES, ingest, newAgent } from "../../test/helpers";
import { call } from "../../test/http";
import { searchAgentDocuments } from "../retrieval/retrieve";
import { extractiveAnswer } from "./extractive";

// No chat model configured: the no-match cut grades, and answers are quoted from the chunks.

async function agentWithArticles(name: string, tools: "document_search"[] = ["document_search"]) {
  const agent = newAgent(name, tools);
  for (const [file, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${file}.md`, text);
  return agent;
}
const ask = (agentId: number, json: unknown) => call(askApi.POST, { json, params: { id: String(agentId) } });

describe("ask without a chat model", () => {
  it("answers with the best-matching sentences of the retrieved chunks, cited, and says it is extractive", async () => {
    const agent = await agentWithArticles("ask extractive");
    const res = await ask(agent.id, { question: "How many days until a refund reaches my card?" });
    expect(res.status).toBe(200);
    const body = res.body;
    expect(body).toMatchObject({ refused: false, reason: null, answer_kind: "extractive", graded_by: "the no-match cut" });
    expect(body.retrieved).toHaveLength(3); // top_k defaults to 3
    expect(body.retrieved.every((r: { relevant: boolean }) => r.relevant)).toBe(true);
    expect(body.answer).toContain("Refunds reach the original payment method in 5 to 10 days. [refunds.md #0]");
    expect(body.citations[0]).toMatchObject({ filename: "refunds.md", chunk_index: 0 });
    // The same retrieval as the search: the retrieved list is the search's result, with the grade added.
    const searched = await searchAgentDocuments(agent.id, "How many days until a refund reaches my card?", 3);
    expect(body.retrieved.map(({ relevant: _, ...r }: { relevant: boolean }) => r)).toEqual(searched);
    expect(recentToolCalls(agent.id, 1)[0]).toMatchObject({ tool: "ask", ok: 1, outcome: "answered", result_count: body.citations.length });
  });

  it("refuses with no_match when the cut leaves nothing, logs it, and lists it as a refusal", async () => {
    const agent = await agentWithArticles("ask refuses");
    const question = "What is the capital of Peru?";
    const [closest] = await searchAgentDocuments(agent.id, question, 1);
    await call(agentApi.PATCH, { method: "PATCH", json: { max_distance: closest.score - 0.001 }, params: { id: String(agent.id) } });
    const res = await ask(agent.id, { question, top_k: 5 });
    expect(res.body).toEqual({
      question,
      answer: null,
      refused: true,
      reason: "no_match",
      answer_kind: null,
      graded_by: "the no-match cut",
      citations: [],
      retrieved: [],
    });
    expect(recentRefusals(agent.id)).toEqual([expect.objectContaining({ tool: "ask", outcome: "refused: no_match" })]);
    // A question within the cut is still answered.
    const answered = await ask(agent.id, { question: "support first response business hours premium", top_k: 5 });
    expect(answered.body.refused).toBe(false);
  });

  it("is refused for an agent without the document_search tool, logged, and validates its input", async () => {
    const agent = await agentWithArticles("ask no tool", []);
    const res = await ask(agent.id, { question: "refund" });
    expect(res.status).toBe(403);
    expect(recentToolCalls(agent.id, 1)[0]).toMatchObject({ tool: "ask", ok: 0 });
    const other = await agentWithArticles("ask input");
    expect((await ask(other.id, { question: "  " })).status).toBe(422);
    expect((await ask(other.id, { question: "refund", top_k: 0 })).status).toBe(422);
  });
});

describe("extractiveAnswer", () => {
  it("quotes the sentences sharing most words with the question, in source order, each with its label", () => {
    const sources = [
      { label: "a.md #0", text: "# Refunds\nRefunds are issued within 30 days. Gift cards are final." },
      { label: "b.md #1", text: "Shipping takes two days. A refund reaches the card in 5 to 10 days." },
    ];
    const { answer, used } = extractiveAnswer("When does my refund reach the card?", sources, 2);
    expect(answer).toBe("Refunds are issued within 30 days. [a.md #0] A refund reaches the card in 5 to 10 days. [b.md #1]");
    expect(used).toEqual([0, 1]);
    expect(extractiveAnswer("zebra", sources).answer).toBe("Refunds are issued within 30 days. [a.md #0]");
  });
});
