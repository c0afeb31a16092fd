import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeOpenAIServer, topicVector } from "../../test/fake-openai";

// The app embeds locally; OpenAI (a fake OpenAI-compatible server here, the paid API is not
// reachable) is configured too, so a sweep can measure the same pairs with its model.
let fake: FakeOpenAIServer;
beforeAll(async () => {
  fake = await new FakeOpenAIServer().start();
  process.env.OPENAI_BASE_URL = fake.url;
  process.env.OPENAI_API_KEY = "sk-test-sweep-models";
  process.env.OPENAI_EMBEDDING_MODEL = "test-model";
  process.env.OPENAI_EMBEDDING_DIMENSION = "8";
  // A model that knows synonyms (one dimension per topic), so the test knows each query's ranking.
  fake.vectorOf = topicVector;
});
afterAll(() => fake.close());

const lib = async () => ({
  ...(await import("../../test/helpers")),
  ...(await import("../../test/http")),
  ...(await import("./sweep")),
  ...(await import("./run")),
  ...(await import("../db/pairs")),
  ...(await import("../embeddings/configured")),
  sweepsApi: await import("@/app/api/agents/[id]/sweeps/route"),
  applyApi: await import("@/app/api/agents/[id]/sweeps/[sweepId]/apply/route"),
});

describe("a sweep with the other embedding model", () => {
  it("embeds the documents and the queries with that model into a temporary index, measures the pairs, and cannot be applied", async () => {
    const { newAgent, ingest, ARTICLES, call, createPair, embedder, alternativeEmbedder, startEvaluation, getSweep, sweepsApi, applyApi } =
      await lib();
    expect(embedder().model).toMatch(/^local-/);
    expect(alternativeEmbedder()?.model).toBe("test-model");
    const agent = newAgent("sweep models");
    for (const [file, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${file}.txt`, text);
    const pairs: [string, string][] = [
      ["get my cash reimbursed", "refunds.txt"],
      ["credential trouble", "password.txt"],
      ["how quickly will someone answer", "sla.txt"],
      ["a receipt copy", "invoices.txt"],
      // Refunds' chunk shares more of this query's topics than the invoices one: rank 2.
      ["receipt for a refund", "invoices.txt"],
    ];
    for (const [query, expected_filename] of pairs) createPair(agent.id, { query, expected_filename });
    fake.requests.length = 0;

    const post = (json: unknown) => call(sweepsApi.POST, { json, params: { id: String(agent.id) } });
    const unknown = await post({ settings: [{ chunk_size: 800, chunk_overlap: 100, embedding_model: "text-embedding-3-large" }] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.message).toBe(
      `The embedding model "text-embedding-3-large" is not available: the app embeds with ${embedder().model} and can compare with test-model.`,
    );
    expect(fake.requests).toEqual([]);

    const started = await post({
      settings: [
        { chunk_size: 800, chunk_overlap: 100, chunk_strategy: "boundary", embedding_model: embedder().model }, // the app's own: kept unnamed
        { chunk_size: 800, chunk_overlap: 100, chunk_strategy: "boundary", embedding_model: "test-model" },
      ],
      k: 1,
    });
    expect(started.status).toBe(202);
    await expect.poll(() => getSweep(agent.id, started.body.id).status, { timeout: 60_000 }).toBe("done");
    const sweep = getSweep(agent.id, started.body.id);
    expect(sweep.rows.map((r) => [r.embedding_model ?? null, r.current, r.status])).toEqual([
      [null, true, "done"],
      ["test-model", false, "done"],
    ]);

    // The other model saw every document's text and every query, and nothing else.
    const inputs = fake.requests
      .filter((r) => r.path === "/v1/embeddings")
      .flatMap((r) => {
        expect(r.body.model).toBe("test-model");
        return r.body.input ?? [];
      });
    expect(new Set(inputs)).toEqual(new Set([...Object.values(ARTICLES), ...pairs.map(([q]) => q)]));

    // Its figures are those of its own ranking: every pair first but the last, which is second.
    const other = sweep.rows[1];
    expect(other.recall_at_k).toEqual({ "1": 0.8, "3": 1, "5": 1, "10": 1 });
    expect(other.mrr).toBeCloseTo((4 + 1 / 2) / 5, 9);
    // The app's own row is what an evaluation of the live index says.
    const live = await startEvaluation(agent.id, 1).done;
    expect(sweep.rows[0].recall_at_k!["1"]).toBe(live.recall_at_k!["1"]);
    expect(sweep.rows[0].mrr).toBeCloseTo(live.mrr!, 9);

    const apply = await call(applyApi.POST, { json: { row: 1 }, params: { id: String(agent.id), sweepId: String(sweep.id) } });
    expect(apply.status).toBe(422);
    expect(apply.body.error.message).toMatch(/measured with another embedding model than the app's .*npm run reindex/);
  }, 120_000);
});
