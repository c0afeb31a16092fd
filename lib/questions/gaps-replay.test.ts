import { describe, expect, it } from "vitest";
import { ARTICLES, ingest, newAgent } from "@/test/helpers";
import { documentSearchTool, retrieve } from "@/lib/retrieval/retrieve";
import { updateAgent } from "@/lib/db/agents";
import { embedder } from "@/lib/embeddings/configured";
import type { RetrievalTrace } from "@/lib/core/trace";
import { listQuestions } from "./list";
import { triageQuestion } from "./triage";
import { gapsCsv, listGaps } from "./gaps";
import { replayQuestions } from "./replay";

async function agentWithArticles(name = "Gaps") {
  const agent = newAgent(name);
  for (const [file, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${file}.md`, text);
  return agent;
}

const SLACK = "connect slack to the help desk";
const SLACK_ARTICLE =
  "Slack integration. To connect Slack to the help desk, open Integrations, choose Slack and approve the help desk app in your Slack workspace.";

/** Sets the agent's cut just below the nearest distance of `query`, so the cut refuses it. */
async function cutBelow(agentId: number, query: string) {
  const probe: RetrievalTrace[] = [];
  await retrieve(agentId, [query], { topK: 1, trace: probe });
  const cut = probe[0].best! - 0.01;
  updateAgent(agentId, { cut: { maxDistance: cut, model: embedder().model } });
  return cut;
}

describe("gaps", () => {
  it("lists refused and marked questions, the most asked first, with the closest article, and leaves the answered and triaged out", async () => {
    const agent = await agentWithArticles();
    const cut = await cutBelow(agent.id, SLACK);
    await documentSearchTool(agent.id, SLACK, 3);
    await documentSearchTool(agent.id, SLACK, 3);
    await documentSearchTool(agent.id, "forgot password reset link", 3);
    await documentSearchTool(agent.id, "gift cards", 3);
    await documentSearchTool(agent.id, "phone number for support", 3);
    const byText = new Map((await listQuestions(agent.id, {})).questions.map((q) => [q.text, q]));
    triageQuestion(agent.id, byText.get("phone number for support")!.id, { action: "gap" });
    triageQuestion(agent.id, byText.get("gift cards")!.id, { action: "ignore" });

    const list = await listGaps(agent.id);
    expect(list.limit).toBe(cut);
    const answeredBefore = byText.get("forgot password reset link")!;
    expect(answeredBefore.refused).toBe(0);
    expect(list.gaps.map((g) => [g.text, g.asked, g.why])).toEqual([
      [SLACK, 2, "refused"],
      ["phone number for support", 1, "marked"],
    ]);
    expect(list.gaps[0].closest?.filename).toEqual(expect.stringMatching(/\.md$/));
    expect(list.gaps.every((g) => g.answered_by === null)).toBe(true);

    const csv = gapsCsv(list).split("\r\n");
    expect(csv[0]).toBe(
      "question,asked,last_asked,why,best_distance,closest_document,closest_distance,answered_by,answered_distance,nearer_now",
    );
    expect(csv[1].startsWith(`${SLACK},2,`)).toBe(true);
  });

  it("shows a gap as answered, with the document, once a new upload ranks first within the cut", async () => {
    const agent = await agentWithArticles();
    await cutBelow(agent.id, SLACK);
    await documentSearchTool(agent.id, SLACK, 3);
    expect((await listGaps(agent.id)).gaps.map((g) => [g.text, g.answered_by])).toEqual([[SLACK, null]]);
    const slack = await ingest(agent.id, "slack.md", SLACK_ARTICLE);
    const [gap] = (await listGaps(agent.id)).gaps;
    expect(gap.answered_by).toMatchObject({ document_id: slack.document_id, filename: "slack.md" });
  });

  it("with no cut and no limit calls nothing answered: a new document that ranks first nearer is only nearer now", async () => {
    const agent = await agentWithArticles();
    await documentSearchTool(agent.id, "do you sell gift cards", 3);
    const [q] = (await listQuestions(agent.id, {})).questions;
    triageQuestion(agent.id, q.id, { action: "gap" });
    const cards = await ingest(
      agent.id,
      "business-cards.md",
      "Business cards. Staff order business cards from the print shop; allow five days for printing.",
    );
    const [gap] = (await listGaps(agent.id)).gaps;
    expect(gap.answered_by).toBeNull();
    expect(gap.nearer_now).toMatchObject({ document_id: cards.document_id, filename: "business-cards.md" });
    expect(gap.nearer_now!.score).toBeLessThan(q.best_distance!);
    // With a limit, the same document answers it only when it is within it.
    expect((await listGaps(agent.id, gap.nearer_now!.score + 0.001)).gaps[0].answered_by?.filename).toBe("business-cards.md");
    expect((await listGaps(agent.id, gap.nearer_now!.score - 0.001)).gaps[0].answered_by).toBeNull();
  });

  it("takes a distance limit when the agent has no cut", async () => {
    const agent = await agentWithArticles();
    await documentSearchTool(agent.id, SLACK, 3);
    expect((await listGaps(agent.id)).gaps).toEqual([]);
    const [q] = (await listQuestions(agent.id, {})).questions;
    const far = await listGaps(agent.id, q.best_distance! - 0.01);
    expect(far.gaps.map((g) => [g.text, g.why])).toEqual([[SLACK, "far"]]);
    expect((await listGaps(agent.id, q.best_distance! + 0.01)).gaps).toEqual([]);
  });
});

describe("replay", () => {
  it("re-runs logged questions now and says what changed: a replaced document no longer comes first", async () => {
    const agent = await agentWithArticles("Replay");
    await documentSearchTool(agent.id, "reset email link for a forgotten password", 3);
    await documentSearchTool(agent.id, "invoice pdf download", 2);
    const unchanged = await replayQuestions(agent.id, { limit: 10 });
    expect(unchanged.summary).toEqual({
      replayed: 2,
      first_document_changed: 0,
      newly_refused: 0,
      newly_answered: 0,
      unchanged: 2,
      other_model: 0,
    });

    await ingest(agent.id, "password.md", "Team seats. Add colleagues to the workspace from the members page.");
    const { summary, questions } = await replayQuestions(agent.id, { limit: 10 });
    expect(summary).toMatchObject({ replayed: 2, first_document_changed: 1, newly_refused: 0, newly_answered: 0, unchanged: 1 });
    const changed = questions.find((q) => q.first_changed)!;
    expect(changed.question).toBe("reset email link for a forgotten password");
    expect(changed.then.first?.filename).toBe("password.md");
    expect(changed.now.first?.filename).not.toBe("password.md");
    expect(changed.then_first_rank_now === null || changed.then_first_rank_now > 1).toBe(true);
    expect(changed.first_distance_change).not.toBeNull();
    expect(questions.find((q) => !q.first_changed)?.then.documents.length).toBeLessThanOrEqual(2);
  });

  it("counts questions the cut now refuses, and replays chosen questions only", async () => {
    const agent = await agentWithArticles("Replay cut");
    await documentSearchTool(agent.id, SLACK, 3);
    await documentSearchTool(agent.id, "forgot password", 3);
    await cutBelow(agent.id, SLACK);
    const [slack] = (await listQuestions(agent.id, { q: "slack" })).questions;
    const { summary, questions } = await replayQuestions(agent.id, { groupIds: [slack.id] });
    expect(summary).toMatchObject({ replayed: 1, newly_refused: 1, newly_answered: 0 });
    expect(questions[0]).toMatchObject({ question: SLACK, then: { ending: "answered" }, now: { ending: "refused", first: null } });
  });

  it("runs one replay per agent at a time", async () => {
    const agent = await agentWithArticles("Replay once");
    await documentSearchTool(agent.id, "forgot password", 3);
    const first = replayQuestions(agent.id, {});
    await expect(replayQuestions(agent.id, {})).rejects.toThrow(/already running/);
    await first;
    await expect(replayQuestions(agent.id, {})).resolves.toMatchObject({ summary: { replayed: 1 } });
  });
});
