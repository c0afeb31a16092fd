import { afterEach, describe, expect, it, vi } from "vitest";
import type { Statement } from "better-sqlite3";
import { ARTICLES, ingest, newAgent } from "@/test/helpers";
import { documentSearchTool } from "@/lib/retrieval/retrieve";
import { embedder } from "@/lib/embeddings/configured";
import { unitQuery } from "@/lib/retrieval/exact-kernel";
import { db } from "@/lib/db/client";
import { groupOfKey, insertGroup } from "@/lib/db/questions";
import { questionKey } from "../core/normalize";
import { GROUP_PAGE, groupQuestions } from "./group";

afterEach(() => vi.restoreAllMocks());

/** A random unit vector: far from any wording and from each other. */
function randomUnit(dimension: number, seed: number): Float32Array {
  let x = seed;
  const v = Float32Array.from({ length: dimension }, () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1);
  return unitQuery(v);
}

/** Counts the rows each read of the question groups returns, as SQLite hands them over, with its query. */
function countGroupReads(): { rows: number[]; queries: { sql: string; args: unknown[] }[] } {
  const reads: number[] = [];
  const queries: { sql: string; args: unknown[] }[] = [];
  const database = db();
  const prepare = database.prepare.bind(database);
  vi.spyOn(database, "prepare").mockImplementation(((sql: string) => {
    const statement = prepare(sql) as Statement;
    if (!/FROM question_groups/i.test(sql) || !/vector/i.test(sql)) return statement;
    const all = statement.all.bind(statement);
    const iterate = statement.iterate.bind(statement);
    return Object.assign(Object.create(statement), {
      all: (...args: unknown[]) => {
        queries.push({ sql, args });
        const rows = all(...(args as []));
        reads.push(rows.length);
        return rows;
      },
      *iterate(...args: unknown[]) {
        queries.push({ sql, args });
        let n = 0;
        for (const row of iterate(...(args as []))) {
          n++;
          yield row;
        }
        reads.push(n);
      },
    });
  }) as typeof database.prepare);
  return { rows: reads, queries };
}

describe("grouping questions", () => {
  it("reads the groups a page at a time, so memory does not grow with their number, and still finds the nearest on the last page", async () => {
    const agent = newAgent("Many groups");
    for (const [file, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${file}.md`, text);
    const wording = "How do I reset my password?";
    const [target] = (await embedder().embed([wording])).map(unitQuery);
    const model = embedder().model;
    // More than two pages of groups, the one the new wording belongs to last.
    const count = 2 * GROUP_PAGE + 5;
    let last = 0;
    db().transaction(() => {
      for (let i = 0; i < count - 1; i++) insertGroup(agent.id, `question ${i}`, `question ${i}`, model, randomUnit(target.length, i + 1));
      last = insertGroup(agent.id, "password reset steps", "password reset steps", model, target);
    })();
    await documentSearchTool(agent.id, wording, 3);
    await documentSearchTool(agent.id, "do you sell gift cards", 3);

    const { rows, queries } = countGroupReads();
    expect(await groupQuestions(agent.id)).toBe(2);
    vi.restoreAllMocks();
    expect(rows.length).toBeGreaterThan(0);
    expect(Math.max(...rows)).toBeLessThanOrEqual(GROUP_PAGE);
    expect(rows.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(count);
    // Nor does SQLite gather and sort every group (vectors included) to hand over a page.
    for (const { sql, args } of queries) {
      const plan = db()
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...(args as [])) as { detail: string }[];
      expect(plan.map((p) => p.detail).join("; ")).not.toMatch(/TEMP B-TREE/);
    }
    expect(groupOfKey(agent.id, questionKey(wording))?.id).toBe(last);
    // The other wording is near none of them: a group of its own.
    expect(groupOfKey(agent.id, "do you sell gift cards")?.id).toBeGreaterThan(last);
  });

  it("makes a group's vector again when it was made with another model, and groups by it", async () => {
    const agent = newAgent("Other model");
    for (const [file, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${file}.md`, text);
    const dimension = embedder().dimension;
    const old = insertGroup(
      agent.id,
      "how do i reset my password please",
      "How do I reset my password, please?",
      "retired-model",
      randomUnit(dimension, 7),
    );
    await documentSearchTool(agent.id, "How do I reset my password?", 3);
    expect(await groupQuestions(agent.id)).toBe(1);
    expect(groupOfKey(agent.id, "how do i reset my password")?.id).toBe(old);
    const row = db()
      .prepare("SELECT model FROM question_keys WHERE agent_id = ? AND key = ?")
      .get(agent.id, "how do i reset my password please") as { model: string };
    expect(row.model).toBe(embedder().model);
  });
});
