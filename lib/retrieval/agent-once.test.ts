import { afterEach, describe, expect, it } from "vitest";
import { db } from "../db/client";
import { getAgent } from "../db/agents";
import { askAgent } from "../ask/ask";
import { ARTICLES, ingest, newAgent } from "../../test/helpers";
import { documentSearchTool } from "./retrieve";

// A handler under /api/agents/[id] gets the agent withAgent loaded; the search and the ask use
// that one and never read the agent's row again (they used to, twice or three times a call).

const prepare = db().prepare;
afterEach(() => {
  db().prepare = prepare;
});

/** Runs `f` and returns the statements it prepared that read an agent's row by id. */
async function agentReads(f: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const conn = db();
  conn.prepare = ((sql: string) => {
    if (/FROM agents WHERE id/.test(sql)) seen.push(sql);
    return prepare.call(conn, sql);
  }) as typeof conn.prepare;
  try {
    await f();
  } finally {
    conn.prepare = prepare;
  }
  return seen;
}

describe("a request resolves its agent once", () => {
  it("searches and asks with the agent the handler holds, reading no agent row", async () => {
    const agent = newAgent("resolved once");
    await ingest(agent.id, "sla.md", ARTICLES.sla);
    const held = getAgent(agent.id);
    expect(await agentReads(() => documentSearchTool(held, "first response time", 3))).toEqual([]);
    expect(await agentReads(() => askAgent(held, "How fast is the first response?", 3))).toEqual([]);
    // Given an id instead, the agent is read (once for the gate's and the search's needs).
    expect((await agentReads(() => documentSearchTool(agent.id, "first response time", 3))).length).toBeGreaterThan(0);
  });

  it("uses what the handler loaded: an agent loaded without the tool is refused even if its row has it now", async () => {
    const agent = newAgent("loaded before");
    const loaded = { ...getAgent(agent.id), tools: [] };
    await expect(documentSearchTool(loaded, "anything", 3)).rejects.toThrow(/does not have the document_search tool/);
  });
});
