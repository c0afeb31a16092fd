import { beforeAll, describe, expect, it } from "vitest";
import { call } from "@/test/http";
import { ARTICLES, ingest, newAgent } from "@/test/helpers";
import * as pairs from "./route";
import * as pair from "./[pairId]/route";

let id: string;
let refundsId: number;
beforeAll(async () => {
  id = String(newAgent("pairs api").id);
  await ingest(Number(id), "sla.md", ARTICLES.sla);
  refundsId = (await ingest(Number(id), "refunds.md", ARTICLES.refunds)).document_id!;
});

const list = async (agent = id) => (await call(pairs.GET, { method: "GET", params: { id: agent } })).body.pairs;

describe("POST /api/agents/{id}/pairs", () => {
  it("accepts valid rows, rejects the others with their reason, and writes nothing for them", async () => {
    const agent = String(newAgent("pairs import").id);
    await ingest(Number(agent), "sla.md", ARTICLES.sla);
    const res = await call(pairs.POST, {
      params: { id: agent },
      json: [
        { query: "support SLA", expected: "sla.md", note: "main case" },
        { query: "  ", expected: "sla.md" },
        { query: "refunds", expected: "refunds.md" },
        { query: "support SLA", expected: "sla.md" },
        { query: 42, expected: "sla.md" },
        { expected: "sla.md" },
        { query: "no document" },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.accepted).toBe(1);
    expect(res.body.rejected).toEqual([
      { row: 2, query: "  ", expected: "sla.md", reason: "empty query", message: "The query is empty." },
      { row: 3, query: "refunds", expected: "refunds.md", reason: "unknown document", message: expect.stringContaining('"refunds.md"') },
      { row: 4, query: "support SLA", expected: "sla.md", reason: "duplicate", message: "Same query and document as row 1." },
      { row: 5, query: "42", expected: "sla.md", reason: "invalid row", message: expect.stringMatching(/^query/) },
      { row: 6, query: null, expected: "sla.md", reason: "empty query", message: "The query is empty." },
      { row: 7, query: "no document", expected: null, reason: "unknown document", message: "No expected document given." },
    ]);
    expect(await list(agent)).toEqual([expect.objectContaining({ query: "support SLA", expected: "sla.md", note: "main case" })]);
    // Importing the same row again is a duplicate of the stored pair.
    const again = await call(pairs.POST, { params: { id: agent }, json: [{ query: "support SLA", expected: "sla.md" }] });
    expect(again).toMatchObject({
      status: 200,
      body: { accepted: 0, rejected: [{ reason: "duplicate", message: "This pair already exists." }] },
    });
  });

  it("takes CSV and JSONL bodies and resolves a document id to the filename", async () => {
    const csv = await call(pairs.POST, {
      params: { id },
      headers: { "content-type": "text/csv" },
      body: `query,expected,note\nhow fast is support,sla.md,\nmoney back,${refundsId},by id\n`,
    });
    expect(csv.body).toMatchObject({ accepted: 2, rejected: [] });
    const jsonl = await call(pairs.POST, {
      params: { id },
      headers: { "content-type": "application/jsonl" },
      body: '{"query":"refund window","expected":"refunds.md"}\n{oops\n',
    });
    expect(jsonl.body).toMatchObject({ accepted: 1, rejected: [{ row: 2, reason: "invalid row" }] });
    const stored = await list();
    expect(stored.find((p: { query: string }) => p.query === "money back")).toMatchObject({ expected: "refunds.md", note: "by id" });
  });

  it("answers 422 for a body that is not an array, 400 for bad JSON and 404 for an unknown agent", async () => {
    expect((await call(pairs.POST, { params: { id }, json: { query: "x", expected: "sla.md" } })).status).toBe(422);
    expect((await call(pairs.POST, { params: { id }, body: "{", headers: { "content-type": "application/json" } })).status).toBe(400);
    expect((await call(pairs.POST, { params: { id: "424242" }, json: [] })).status).toBe(404);
  });
});

describe("GET /api/agents/{id}/pairs", () => {
  it("exports CSV and JSONL that import back to the same pairs", async () => {
    const target = String(newAgent("pairs export").id);
    await ingest(Number(target), "sla.md", ARTICLES.sla);
    await ingest(Number(target), "refunds.md", ARTICLES.refunds);
    for (const format of ["csv", "jsonl"]) {
      const res = await pairs.GET(new Request(`http://localhost/x?format=${format}`), { params: Promise.resolve({ id }) });
      expect(res.headers.get("content-disposition")).toMatch(new RegExp(`attachment; filename=".*-pairs\\.${format}"`));
      const text = await res.text();
      const type = format === "csv" ? "text/csv" : "application/jsonl";
      const back = await call(pairs.POST, { params: { id: target }, body: text, headers: { "content-type": type } });
      expect(back.body.rejected.filter((r: { reason: string }) => r.reason !== "duplicate")).toEqual([]);
    }
    const strip = (ps: { query: string; expected: string; note: string | null }[]) =>
      ps.map(({ query, expected, note }) => ({ query, expected, note }));
    expect(strip(await list(target))).toEqual(strip(await list()));
    const bad = await pairs.GET(new Request("http://localhost/x?format=xml"), { params: Promise.resolve({ id }) });
    expect(bad.status).toBe(422);
  });
});

describe("PATCH and DELETE /api/agents/{id}/pairs/{pairId}", () => {
  it("edits a pair, refusing an unknown document or a duplicate, and deletes it", async () => {
    const created = await call(pairs.POST, {
      params: { id },
      json: [
        { query: "edit me", expected: "sla.md" },
        { query: "edit me", expected: "refunds.md" },
      ],
    });
    expect(created.body.accepted).toBe(2);
    const target = (await list()).find((p: { query: string; expected: string }) => p.query === "edit me" && p.expected === "sla.md");
    const params = { id, pairId: String(target.id) };
    expect((await call(pair.PATCH, { method: "PATCH", params, json: { expected: "nope.md" } })).body.error.code).toBe("unknown_document");
    expect((await call(pair.PATCH, { method: "PATCH", params, json: { expected: "refunds.md" } })).status).toBe(409);
    const edited = await call(pair.PATCH, { method: "PATCH", params, json: { query: "edited", note: "checked" } });
    expect(edited).toMatchObject({ status: 200, body: { query: "edited", expected: "sla.md", note: "checked" } });
    expect((await call(pair.DELETE, { method: "DELETE", params })).status).toBe(204);
    expect((await call(pair.GET, { method: "GET", params })).status).toBe(404);
  });
});
