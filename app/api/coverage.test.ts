import { describe, expect, it } from "vitest";

// Coverage through the app's routes against a real Chroma and SQLite: the counts are the results
// the agent's own logged calls returned, the inspector's calls left out; a replaced document keeps
// its history under its name, a deleted one takes it along; never-retrieved documents come with
// the logged question nearest to them.

const lib = async () => ({
  ...(await import("../../test/helpers")),
  ...(await import("../../test/http")),
  search: await import("@/pages/api/agents/[id]/documents/search"),
  inspectApi: await import("@/app/api/agents/[id]/inspect/route"),
  document: await import("@/app/api/agents/[id]/documents/[docId]/route"),
  coverageApi: await import("@/app/api/agents/[id]/coverage/route"),
});

const ARTICLES: Record<string, string> = {
  "router.md": "Router reset: hold the reset button on the router for ten seconds until the lights blink.",
  "modem.md": "Modem lights: a steady light on the modem means it is online; restart the modem when it blinks.",
  "billing.md": "Invoices are issued on the first day of each billing period and can be downloaded as PDF.",
  "refunds.md": "A refund is available within 30 days of purchase and reaches the original payment method.",
  "sla.md": "Premium customers get a first response from the support team within four business hours.",
  "tomatoes.md": "Tomato plants need full sun, deep watering every morning in summer, and a stake to climb.",
};

type Result = { filename: string; document_id: number; chunk_index: number };
type Tally = { retrieved: number; ranks: Record<string, number> };

const bucket = (rank: number) => (rank <= 3 ? String(rank) : rank <= 5 ? "4-5" : "6+");

/** What the calls' answers say: per name, the calls that returned it and the best rank of each. */
function tallyOf(answers: Result[][], key: (r: Result) => string): Map<string, Tally> {
  const out = new Map<string, Tally>();
  for (const results of answers) {
    const best = new Map<string, number>();
    results.forEach((r, i) => best.set(key(r), Math.min(best.get(key(r)) ?? Infinity, i + 1)));
    for (const [k, rank] of best) {
      const t = out.get(k) ?? { retrieved: 0, ranks: { "1": 0, "2": 0, "3": 0, "4-5": 0, "6+": 0 } };
      t.retrieved++;
      t.ranks[bucket(rank)]++;
      out.set(k, t);
    }
  }
  return out;
}

async function setup(name: string) {
  const { newAgent, ingest } = await lib();
  const agent = newAgent(name);
  for (const [file, text] of Object.entries(ARTICLES)) await ingest(agent.id, file, text);
  return agent;
}

describe("coverage", () => {
  it("counts, per document and per chunk, exactly what the agent's own calls returned, and not the inspector's", async () => {
    const { call, search, inspectApi, coverageApi } = await lib();
    const agent = await setup("coverage counts");
    const other = await setup("coverage other agent");
    const params = { id: String(agent.id) };
    const queries: [string, number][] = [
      ["how do I reset the router", 2],
      ["modem lights blinking", 2],
      ["router lights", 1],
      ["refund within 30 days", 2],
      ["router reset button", 3],
    ];
    const answers: Result[][] = [];
    for (const [query, top_k] of queries) {
      const res = await call(search.POST, { params, json: { query, top_k } });
      expect(res.status).toBe(200);
      answers.push(res.body.results);
    }
    // Another agent's calls and the inspector's are not the agent's traffic.
    await call(search.POST, { params: { id: String(other.id) }, json: { query: "premium support first response", top_k: 5 } });
    await call(inspectApi.POST, { params, json: { query: "premium support first response", top_k: 5 } });

    const got = await call(coverageApi.GET, { method: "GET", params, url: "?since=all" });
    expect(got.status).toBe(200);
    expect(got.body.calls).toBe(queries.length);
    const expected = tallyOf(answers, (r) => r.filename);
    expect(got.body.documents).toHaveLength(Object.keys(ARTICLES).length);
    for (const d of got.body.documents as (Tally & { filename: string; first_at: string | null })[]) {
      const want = expected.get(d.filename) ?? { retrieved: 0, ranks: { "1": 0, "2": 0, "3": 0, "4-5": 0, "6+": 0 } };
      expect({ retrieved: d.retrieved, ranks: d.ranks }, d.filename).toEqual(want);
      expect(d.first_at === null).toBe(want.retrieved === 0);
    }
    // Sorted most retrieved first by default; the never-retrieved count matches.
    const counts = got.body.documents.map((d: Tally) => d.retrieved);
    expect(counts).toEqual([...counts].sort((a: number, b: number) => b - a));
    expect(got.body.never_retrieved).toBe(Object.keys(ARTICLES).filter((f) => !expected.has(f)).length);
    expect(got.body.never_retrieved).toBeGreaterThan(0);

    // Per chunk of one document: the same, from the same answers.
    const router = got.body.documents.find((d: { filename: string }) => d.filename === "router.md");
    const chunks = await call(coverageApi.GET, { method: "GET", params, url: `?since=all&document_id=${router.id}` });
    const perChunk = tallyOf(
      answers.map((a) => a.filter((r) => r.document_id === router.id)),
      (r) => String(r.chunk_index),
    );
    expect(chunks.body.chunks.length).toBeGreaterThan(0);
    for (const c of chunks.body.chunks as (Tally & { chunk_index: number })[]) {
      // A chunk's rank is its place among all results of the call, not among its document's.
      const ranks = answers.flatMap((a) => {
        const i = a.findIndex((r) => r.document_id === router.id && r.chunk_index === c.chunk_index);
        return i < 0 ? [] : [i + 1];
      });
      expect(c.retrieved).toBe(perChunk.get(String(c.chunk_index))?.retrieved ?? 0);
      expect(c.ranks["1"]).toBe(ranks.filter((r) => r === 1).length);
    }

    // The other agent's coverage holds only its one call.
    const theirs = await call(coverageApi.GET, { method: "GET", params: { id: String(other.id) }, url: "?since=all" });
    expect(theirs.body.calls).toBe(1);

    // A window after every call counts nothing; a malformed window is refused.
    const later = new Date(Date.now() + 60_000).toISOString();
    const none = await call(coverageApi.GET, { method: "GET", params, url: `?since=${encodeURIComponent(later)}` });
    expect(none.body.calls).toBe(0);
    expect(none.body.documents.every((d: Tally) => d.retrieved === 0)).toBe(true);
    const bad = await call(coverageApi.GET, { method: "GET", params, url: "?since=last-week" });
    expect(bad.status).toBe(422);
    expect(bad.body.error.message).toMatch(/since must be "all", a number of days or hours/);
  });

  it("keeps a replaced document's history under its name, drops a deleted one's, and a new upload of that name starts at zero", async () => {
    const { call, search, document, coverageApi, ingest } = await lib();
    const agent = await setup("coverage versions");
    const params = { id: String(agent.id) };
    for (const query of ["router reset", "reset the router button", "router lights blink"])
      await call(search.POST, { params, json: { query, top_k: 1 } });
    const before = await call(coverageApi.GET, { method: "GET", params, url: "?since=all" });
    const routerBefore = before.body.documents.find((d: { filename: string }) => d.filename === "router.md");
    expect(routerBefore.retrieved).toBe(3);

    // Replaced: the name keeps its three calls; the new version's chunks have none yet.
    await ingest(agent.id, "router.md", `${ARTICLES["router.md"]} Then wait two minutes for it to restart.`);
    const replaced = await call(coverageApi.GET, { method: "GET", params, url: "?since=all" });
    const routerAfter = replaced.body.documents.find((d: { filename: string }) => d.filename === "router.md");
    expect(routerAfter.id).not.toBe(routerBefore.id);
    expect(routerAfter.retrieved).toBe(3);
    const chunks = await call(coverageApi.GET, { method: "GET", params, url: `?since=all&document_id=${routerAfter.id}` });
    expect(chunks.body.chunks.every((c: Tally) => c.retrieved === 0)).toBe(true);
    const gone = await call(coverageApi.GET, { method: "GET", params, url: `?since=all&document_id=${routerBefore.id}` });
    expect(gone.status).toBe(404);

    // Deleted: gone from coverage; uploaded again under the same name, it starts from nothing.
    const deleted = await call(document.DELETE, { method: "DELETE", params: { id: params.id, docId: String(routerAfter.id) } });
    expect(deleted.status).toBe(204);
    const without = await call(coverageApi.GET, { method: "GET", params, url: "?since=all" });
    expect(without.body.documents.map((d: { filename: string }) => d.filename)).not.toContain("router.md");
    await ingest(agent.id, "router.md", ARTICLES["router.md"]);
    const again = await call(coverageApi.GET, { method: "GET", params, url: "?since=all" });
    expect(again.body.documents.find((d: { filename: string }) => d.filename === "router.md").retrieved).toBe(0);
    // The calls themselves stay in the log: only what they count for changed.
    expect(again.body.calls).toBe(3);
  });

  it("lists the documents never retrieved, each with the logged question nearest to it", async () => {
    const { call, search, coverageApi } = await lib();
    const agent = await setup("coverage never");
    const params = { id: String(agent.id) };
    const slaQuestion = "premium customers first response support team four business hours";
    // The SLA question is asked with a filter that leaves sla.md out: it stays never retrieved.
    await call(search.POST, { params, json: { query: slaQuestion, top_k: 1, filter: { filename: { $ne: "sla.md" } } } });
    for (const query of ["router reset button", "modem lights", "invoice PDF billing period"])
      await call(search.POST, { params, json: { query, top_k: 1 } });

    const never = await call(coverageApi.GET, { method: "GET", params, url: "?since=all&never=true" });
    expect(never.status).toBe(200);
    const listed = never.body.documents as { filename: string; nearest_question: { text: string; distance: number } | null }[];
    const coverage = await call(coverageApi.GET, { method: "GET", params, url: "?since=all" });
    const zero = coverage.body.documents.filter((d: Tally) => d.retrieved === 0).map((d: { filename: string }) => d.filename);
    expect(listed.map((d) => d.filename).sort()).toEqual([...zero].sort());
    expect(never.body.total).toBe(zero.length);
    const sla = listed.find((d) => d.filename === "sla.md");
    expect(sla?.nearest_question?.text).toBe(slaQuestion);
    for (const d of listed) {
      expect(d.nearest_question).not.toBeNull();
      expect(d.nearest_question!.distance).toBeGreaterThanOrEqual(0);
    }
    expect(sla!.nearest_question!.distance).toBe(Math.min(...listed.map((d) => d.nearest_question!.distance)));
    // Paged.
    const first = await call(coverageApi.GET, { method: "GET", params, url: "?since=all&never=true&limit=1" });
    expect(first.body.documents).toHaveLength(1);
    expect(first.body.total).toBe(zero.length);
  });
});
