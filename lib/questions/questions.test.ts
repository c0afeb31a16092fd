import { describe, expect, it } from "vitest";
import { ARTICLES, ingest, newAgent } from "@/test/helpers";
import { documentSearchTool } from "@/lib/retrieval/retrieve";
import { askAgent } from "@/lib/ask/ask";
import { listQuestions } from "./list";
import { triageQuestion } from "./triage";
import { listPairs } from "@/lib/db/pairs";
import { inspectQuery } from "@/lib/retrieval/inspect";
import { updateAgent } from "@/lib/db/agents";
import { embedder } from "@/lib/embeddings/configured";

async function agentWithArticles() {
  const agent = newAgent("Questions");
  for (const [name, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${name}.md`, text);
  return agent;
}

describe("the agent's questions", () => {
  it("groups the same question asked again, after case, spacing and punctuation, into one row", async () => {
    const agent = await agentWithArticles();
    await documentSearchTool(agent.id, "How do I reset my password?", 3);
    await documentSearchTool(agent.id, "how do i   reset my PASSWORD", 3);
    await documentSearchTool(agent.id, "When is my invoice issued?", 3);
    const { questions } = await listQuestions(agent.id, {});
    const reset = questions.find((q) => q.text === "How do I reset my password?");
    expect(reset).toMatchObject({ asked: 2, wordings: 1, status: "open", latest: { tool: "document_search", outcome: "answered" } });
    expect(reset!.top_documents[0].filename).toBe("password.md");
    expect(questions.map((q) => q.asked)).toEqual([2, 1]);
  });

  it("leaves the inspector's tries out and lists asks too", async () => {
    const agent = await agentWithArticles();
    await inspectQuery(agent.id, "refund to my card", 3);
    await askAgent(agent.id, "How long does a refund take?", 3);
    const { questions } = await listQuestions(agent.id, {});
    expect(questions.map((q) => q.text)).toEqual(["How long does a refund take?"]);
    expect(questions[0].latest.tool).toBe("ask");
  });

  it("labels a question as a pair from the log, and marks it", async () => {
    const agent = await agentWithArticles();
    await documentSearchTool(agent.id, "forgot my password", 3);
    const [q] = (await listQuestions(agent.id, {})).questions;
    const { group, pair } = triageQuestion(agent.id, q.id, { action: "label", expected: "password.md" });
    expect(group.status).toBe("labeled");
    expect(pair).toMatchObject({ query: "forgot my password", expected_filename: "password.md", source: "log", status: "accepted" });
    expect(listPairs(agent.id).map((p) => p.source)).toEqual(["log"]);
    expect((await listQuestions(agent.id, { status: "labeled" })).questions.map((x) => x.id)).toEqual([q.id]);
  });

  it("keeps the question text out of the log when the agent does not log questions, and says why the tab is empty", async () => {
    const agent = await agentWithArticles();
    updateAgent(agent.id, { log_questions: false });
    await documentSearchTool(agent.id, "forgot my password", 3);
    const list = await listQuestions(agent.id, {});
    expect(list.questions).toEqual([]);
    expect(list.empty_reason).toMatch(/does not log its questions/);
    expect(embedder().model).toBeTruthy();
  });
});
