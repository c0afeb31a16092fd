import { beforeAll, describe, expect, it } from "vitest";
import * as search from "@/pages/api/agents/[id]/documents/search";
import { logToolCall, recentToolCalls } from "@/lib/db/tool-calls";
import { MAX_QUERY_LENGTH } from "@/lib/validations/search";
import { call } from "@/test/http";
import { ARTICLES, ingest, newAgent } from "@/test/helpers";
import * as ask from "./agents/[id]/ask/route";
import * as inspect from "./agents/[id]/inspect/route";

let id: string;
beforeAll(async () => {
  id = String(newAgent("query length").id);
  await ingest(Number(id), "sla.txt", ARTICLES.sla);
});

/** A query of `n` characters made of words, so it embeds like a (very long) question. */
const words = (n: number) => "support response time ".repeat(Math.ceil(n / 22)).slice(0, n);
const logged = () => recentToolCalls(Number(id), 50);

// One limit for every path that takes a query from a client and logs it: the one ask has.
const paths = [
  ["POST /agents/{id}/documents/search", (query: string) => call(search.POST, { json: { query, top_k: 3 }, params: { id } })],
  ["POST /api/agents/{id}/inspect", (query: string) => call(inspect.POST, { json: { query, top_k: 3 }, params: { id } })],
  ["POST /agents/{id}/ask", (question: string) => call(ask.POST, { json: { question, top_k: 3 }, params: { id } })],
] as const;

describe("the length of a query", () => {
  it.each(paths)("%s answers 422 naming the limit for a longer query, logs nothing, and takes one of the limit", async (_, send) => {
    const before = logged().length;
    const long = await send(words(MAX_QUERY_LENGTH + 1));
    expect(long.status).toBe(422);
    expect(long.body.error).toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining(`at most ${MAX_QUERY_LENGTH} characters`),
    });
    const huge = await send(words(200_000));
    expect(huge.status).toBe(422);
    expect(logged()).toHaveLength(before);

    // Surrounding whitespace does not count; the query stored in the log is the one answered.
    const atLimit = await send(`   ${words(MAX_QUERY_LENGTH)}\n`);
    expect(atLimit.status, JSON.stringify(atLimit.body)).toBe(200);
    const [last] = logged();
    const input = JSON.parse(last.input);
    expect((input.query ?? input.question).length).toBe(MAX_QUERY_LENGTH);
  });

  it("is capped in the tool-call log whoever logs it", () => {
    logToolCall({
      agentId: Number(id),
      tool: "document_search",
      input: { query: words(50_000), top_k: 3 },
      ok: true,
      latencyMs: 1,
      resultCount: 0,
    });
    const [last] = logged();
    expect(last.input.length).toBeLessThan(MAX_QUERY_LENGTH + 100);
    expect(JSON.parse(last.input)).toEqual({ query: words(MAX_QUERY_LENGTH), top_k: 3 });
  });
});
