import { afterEach, describe, expect, it, vi } from "vitest";

// Small limits so the bounds show with a handful of rows; read once by env() on first use.
process.env.TOOL_CALL_MAX_PER_AGENT = "5";
process.env.TOOL_CALL_RETENTION_DAYS = "30";

const { db } = await import("./client");
const { newAgent } = await import("../../test/helpers");
const { logToolCall, pruneToolCalls, PRUNE_INTERVAL_MS } = await import("./tool-calls");

const DAY_MS = 86_400_000;

function log(agentId: number, query: string) {
  logToolCall({ agentId, tool: "document_search", input: { query, top_k: 3 }, ok: true, latencyMs: 1, resultCount: 0 });
}

/** A call logged `daysAgo` days ago, written straight to the table. */
function logDated(agentId: number, query: string, daysAgo: number) {
  db()
    .prepare(
      `INSERT INTO tool_calls (agent_id, tool, input, ok, latency_ms, result_count, created_at)
       VALUES (?, 'document_search', ?, 1, 1, 0, ?)`,
    )
    .run(agentId, JSON.stringify({ query, top_k: 3 }), new Date(Date.now() - daysAgo * DAY_MS).toISOString());
}

const queries = (agentId: number) =>
  (db().prepare("SELECT input FROM tool_calls WHERE agent_id = ? ORDER BY created_at, id").all(agentId) as { input: string }[]).map(
    (r) => JSON.parse(r.input).query as string,
  );

afterEach(() => {
  vi.useRealTimers();
});

describe("tool-call history retention", () => {
  it("drops an agent's calls older than the retention and beyond its newest N, and no other agent's", () => {
    const a = newAgent("retention a");
    const b = newAgent("retention b");
    for (const agent of [a, b]) {
      logDated(agent.id, "31 days old", 31);
      logDated(agent.id, "29 days old", 29);
      for (let i = 1; i <= 6; i++) logDated(agent.id, `q${i}`, (7 - i) / 1440);
    }
    const before = queries(b.id);
    expect(before).toHaveLength(8);

    const removed = pruneToolCalls(a.id, { retentionDays: 30, maxPerAgent: 5 });

    expect(removed).toBe(3);
    expect(queries(a.id)).toEqual(["q2", "q3", "q4", "q5", "q6"]);
    expect(queries(b.id)).toEqual(before);

    expect(pruneToolCalls(b.id, { retentionDays: 30, maxPerAgent: 50 })).toBe(1);
    expect(queries(b.id)).toEqual(["29 days old", "q1", "q2", "q3", "q4", "q5", "q6"]);
  });

  it("prunes as calls are logged, at most once a minute per agent, with the configured limits", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = Date.now();
    const a = newAgent("logged a");
    const b = newAgent("logged b");
    for (let i = 1; i <= 3; i++) log(b.id, `b${i}`);
    logDated(a.id, "31 days old", 31);

    // The first call of the minute prunes (the 31-day-old row goes); the rest only insert.
    for (let i = 1; i <= 8; i++) log(a.id, `a${i}`);
    expect(queries(a.id)).toEqual(["a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8"]);

    vi.setSystemTime(start + PRUNE_INTERVAL_MS + 1000);
    log(a.id, "a9");
    expect(queries(a.id)).toEqual(["a5", "a6", "a7", "a8", "a9"]);
    expect(queries(b.id)).toEqual(["b1", "b2", "b3"]);
  });
});

describe("a call whose agent was deleted meanwhile", () => {
  it("is not logged, and logging it does not fail the call", async () => {
    const { logToolCall } = await import("./tool-calls");
    expect(() =>
      logToolCall({ agentId: 987_654, tool: "document_search", input: { query: "q", top_k: 1 }, ok: true, latencyMs: 1, resultCount: 0 }),
    ).not.toThrow();
  });
});
