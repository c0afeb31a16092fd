import path from "node:path";
import Database from "better-sqlite3";
import { beforeAll, describe, expect, it } from "vitest";
import { chunkText } from "../core/chunking";
import { db, groupedWrite } from "./client";
import { createAgent } from "./agents";
import { commitReady, deleteDocumentRow, getDocument, insertDocument } from "./documents";
import { keywordTable } from "./keyword-index";

/** A second connection to the same file: it sees only what has been committed. */
let other: Database.Database;
beforeAll(() => {
  db().exec("CREATE TABLE IF NOT EXISTS grouped_probe (id INTEGER PRIMARY KEY, label TEXT NOT NULL)");
  other = new Database(path.join(process.env.DATA_DIR!, "kb.sqlite"), { readonly: true });
});

const insertProbe = (label: string) => () =>
  Number(db().prepare("INSERT INTO grouped_probe (label) VALUES (?)").run(label).lastInsertRowid);
const committed = (label: string) => !!other.prepare("SELECT 1 FROM grouped_probe WHERE label = ?").get(label);

describe("groupedWrite", () => {
  it("writes asked for in the same turn share one transaction; later ones go in the next", async () => {
    const seenByOther: boolean[] = [];
    const a = groupedWrite(insertProbe("a1"));
    const b = groupedWrite(() => {
      // Inside the group, a1 is written but not committed yet.
      seenByOther.push(committed("a1"));
      return insertProbe("a2")();
    });
    await Promise.all([a, b]);
    expect(seenByOther).toEqual([false]);
    expect(committed("a1") && committed("a2")).toBe(true);

    // Asked for after the first group committed: a group of its own, which sees it.
    const c = await groupedWrite(() => {
      seenByOther.push(committed("a2"));
      return insertProbe("a3")();
    });
    expect(seenByOther).toEqual([false, true]);
    expect(c).toBeGreaterThan(0);
  });

  it("rolls back and rejects only the piece that throws; the others commit", async () => {
    const results = await Promise.allSettled([
      groupedWrite(insertProbe("b1")),
      groupedWrite(() => {
        insertProbe("b2")();
        throw new Error("refused");
      }),
      groupedWrite(insertProbe("b3")),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((results[1] as PromiseRejectedResult).reason.message).toBe("refused");
    expect([committed("b1"), committed("b2"), committed("b3")]).toEqual([true, false, true]);
  });

  it("runs `last` after all the work, outside the savepoints, and a `last` that throws rolls the whole group back", async () => {
    const order: string[] = [];
    await Promise.all([
      groupedWrite(
        () => (order.push("work c1"), insertProbe("c1")()),
        (id) => order.push(`last c1 ${typeof id}`),
      ),
      groupedWrite(
        () => (order.push("work c2"), insertProbe("c2")()),
        () => order.push("last c2"),
      ),
    ]);
    expect(order).toEqual(["work c1", "work c2", "last c1 number", "last c2"]);

    const results = await Promise.allSettled([
      groupedWrite(insertProbe("d1")),
      groupedWrite(insertProbe("d2"), () => {
        throw new Error("index refused");
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect([committed("d1"), committed("d2")]).toEqual([false, false]);
  });
});

describe("commitReady", () => {
  it("makes documents ready together with their chunks in the keyword index; one deleted meanwhile stays out", async () => {
    const agent = createAgent({ name: "grouped ready", tools: ["document_search"] });
    const ids = ["refund policy", "shipping times", "password reset"].map((topic, i) => {
      const text = `${topic} `.repeat(30);
      return insertDocument(
        {
          agent_id: agent.id,
          filename: `doc-${i}.md`,
          type: "md",
          sha256: `grouped-${i}`,
          bytes: text.length,
          chunk_size: 100,
          chunk_overlap: 0,
          text,
          embedding_model: "m",
        },
        chunkText(text, 100, 0, "fixed"),
      );
    });
    deleteDocumentRow(agent.id, ids[1]);
    const outcomes = await Promise.all(ids.map((id, i) => commitReady(agent.id, id, `doc-${i}.md`, 4)));
    expect(outcomes[0]).toEqual({ retired: [] });
    expect(outcomes[1]).toBeNull();
    expect(outcomes[2]).toEqual({ retired: [] });
    expect(getDocument(agent.id, ids[0]).status).toBe("ready");
    expect(getDocument(agent.id, ids[2]).status).toBe("ready");
    const hits = (word: string) =>
      other.prepare(`SELECT count(*) AS n FROM ${keywordTable(agent.id)} WHERE ${keywordTable(agent.id)} MATCH ?`).get(word) as {
        n: number;
      };
    expect(hits("refund").n).toBeGreaterThan(0);
    expect(hits("password").n).toBeGreaterThan(0);
    expect(hits("shipping").n).toBe(0);
  });
});
