import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as agents from "@/app/api/agents/route";
import * as agent from "@/app/api/agents/[id]/route";
import * as documents from "@/app/api/agents/[id]/documents/route";
import * as pairs from "@/app/api/agents/[id]/pairs/route";
import * as evals from "@/app/api/agents/[id]/evals/route";
import * as health from "@/app/api/health/route";
import * as search from "@/pages/api/agents/[id]/documents/search";
import { embedder } from "@/lib/embeddings/configured";
import { useHealthDeadline } from "@/lib/index-upkeep/health";
import { LOCAL_PEER } from "@/test/http";
import { DEMO_AGENT_NAME, DEMO_SEED_FILE, demoArticles, planDemoSeed, readDemoSeed, seedDemo } from "./demo-seed.mjs";

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

// The app's own route handlers behind a real HTTP server: the seeding talks to it as it talks to `npm start`.
const ROUTES: [string, RegExp, Handler][] = [
  ["GET", /^\/api\/health$/, health.GET as Handler],
  ["GET", /^\/api\/agents$/, agents.GET as Handler],
  ["POST", /^\/api\/agents$/, agents.POST as Handler],
  ["GET", /^\/api\/agents\/(?<id>[^/]+)$/, agent.GET as Handler],
  ["DELETE", /^\/api\/agents\/(?<id>[^/]+)$/, agent.DELETE as Handler],
  ["GET", /^\/api\/agents\/(?<id>[^/]+)\/documents$/, documents.GET as Handler],
  ["POST", /^\/api\/agents\/(?<id>[^/]+)\/documents$/, documents.POST as Handler],
  ["POST", /^\/api\/agents\/(?<id>[^/]+)\/documents\/search$/, search.POST as Handler],
  ["GET", /^\/api\/agents\/(?<id>[^/]+)\/pairs$/, pairs.GET as Handler],
  ["POST", /^\/api\/agents\/(?<id>[^/]+)\/pairs$/, pairs.POST as Handler],
  ["GET", /^\/api\/agents\/(?<id>[^/]+)\/evals$/, evals.GET as Handler],
  ["POST", /^\/api\/agents\/(?<id>[^/]+)\/evals$/, evals.POST as Handler],
];

const DEMO = path.join(import.meta.dirname, "..", "demo");
const dataDir = process.env.DATA_DIR!;
const SLA_QUESTION = "what is the SLA for support";
const logged: string[] = [];
const log = (msg: string) => logged.push(msg);
let server: http.Server;
let base: string;

// Healthy however long a busy machine's Chroma takes to answer (within CHROMA_TIMEOUT_MS): the 3 s probe deadline is not under test here.
let undoDeadline: () => void;
beforeAll(() => void (undoDeadline = useHealthDeadline(Number.POSITIVE_INFINITY)));
afterAll(() => undoDeadline());

beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const pathname = new URL(req.url!, "http://x").pathname;
    const match = ROUTES.map(([m, re, h]) => [m === req.method && re.exec(pathname), h] as const).find(([m]) => m);
    if (!match) return void res.writeHead(404).end("{}");
    // Stamped as from this machine, as the launcher's server stamps every request (scripts/stamp-peers.mjs).
    const request = new Request(`http://x${req.url}`, {
      method: req.method,
      headers: { ...(req.headers as Record<string, string>), ...LOCAL_PEER },
      body: req.method === "GET" || req.method === "DELETE" ? undefined : Buffer.concat(chunks),
    });
    const response = await match[1](request, { params: Promise.resolve({ ...(match[0] as RegExpExecArray).groups }) });
    res.writeHead(response.status, Object.fromEntries(response.headers)).end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const get = async (p: string) => {
  const res = await fetch(`${base}${p}`);
  return { status: res.status, body: await res.json() };
};
const searchSla = async (id: number) => {
  const res = await fetch(`${base}/api/agents/${id}/documents/search`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: SLA_QUESTION, top_k: 3 }),
  });
  return { status: res.status, body: await res.json() };
};
const demoAgentId = async (): Promise<number | undefined> =>
  (await get("/api/agents")).body.agents.find((a: { name: string }) => a.name === DEMO_AGENT_NAME)?.id;

/** What a script or Playwright does after `npm start`: ask /api/health until it answers 200. */
async function healthy() {
  for (;;) {
    if ((await fetch(`${base}/api/health`)).status === 200) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A hold that reports when seeding reached it and keeps it there until released. */
function gate() {
  let reached!: () => void;
  let release!: () => void;
  const at = new Promise<void>((r) => (reached = r));
  const released = new Promise<void>((r) => (release = r));
  return { at, release, hold: async () => (reached(), released) };
}

async function removeDemoAgent() {
  const id = await demoAgentId();
  if (id !== undefined) expect((await fetch(`${base}/api/agents/${id}`, { method: "DELETE" })).status).toBe(204);
}

describe("the first start's demo agent", () => {
  it("keeps health at 503 starting until its articles are searchable, so the first search after ok finds the SLA article", async () => {
    expect(planDemoSeed({ dataDir, firstStart: true, demo: true, signedIn: false })).toBe("seed");
    const window = gate();
    const seeding = seedDemo({ base, demoDir: DEMO, dataDir, log, hold: window.hold });
    const waiter = healthy();
    // Held just after the agent is made, before its articles are indexed: the window a user could fall into.
    expect(await Promise.race([window.at.then(() => "held"), waiter.then(() => "healthy")])).toBe("held");
    const during = await get("/api/health");
    expect(during.status).toBe(503);
    expect(during.body).toMatchObject({ ok: false, status: "starting", message: expect.stringMatching(/demo agent/) });
    const id = (await demoAgentId())!;
    expect((await searchSla(id)).body.results).toEqual([]);

    window.release();
    await waiter;
    const first = await searchSla(id);
    expect(first.status).toBe(200);
    expect(first.body.results[0].filename).toBe("support-sla.md");
    await seeding;
    expect(readDemoSeed(dataDir)).toBeNull();
    const { runs } = (await get(`/api/agents/${id}/evals`)).body;
    expect(runs.map((r: { status: string }) => r.status)).toEqual(["done"]);
  });

  it("answers starting at once, without embedding a probe or asking Chroma", async () => {
    expect(planDemoSeed({ dataDir, firstStart: true, demo: true, signedIn: false })).toBe("seed");
    const embed = vi.spyOn(embedder(), "embed");
    try {
      expect((await get("/api/health")).status).toBe(503);
      expect(embed).not.toHaveBeenCalled();
    } finally {
      embed.mockRestore();
      fs.rmSync(path.join(dataDir, DEMO_SEED_FILE));
    }
    expect((await get("/api/health")).status).toBe(200);
  });

  it("finishes an agent a crash cut short on the next start: the same agent, every article once, the pairs once, one run", async () => {
    await removeDemoAgent();
    expect(planDemoSeed({ dataDir, firstStart: true, demo: true, signedIn: false })).toBe("seed");
    // The launcher dies after the agent is made and one article is indexed: the seeding never goes on.
    const crash = gate();
    void seedDemo({ base, demoDir: DEMO, dataDir, log, hold: crash.hold });
    await crash.at;
    const id = (await demoAgentId())!;
    expect(readDemoSeed(dataDir)).toEqual({ agent_id: id });
    const [firstArticle] = demoArticles(DEMO);
    const form = new FormData();
    form.append("files", new Blob([fs.readFileSync(path.join(DEMO, firstArticle))]), firstArticle);
    expect((await fetch(`${base}/api/agents/${id}/documents`, { method: "POST", body: form })).status).toBe(201);

    // The next start: DATA_DIR has its database, and the marker says the demo is owed.
    expect(planDemoSeed({ dataDir, firstStart: false, demo: true, signedIn: false })).toBe("seed");
    expect((await get("/api/health")).body).toMatchObject({ ok: false, status: "starting" });
    await seedDemo({ base, demoDir: DEMO, dataDir, log });
    expect(await demoAgentId()).toBe(id);
    const docs = (await get(`/api/agents/${id}/documents`)).body.documents;
    expect(docs.map((d: { filename: string; status: string }) => `${d.filename} ${d.status}`).sort()).toEqual(
      demoArticles(DEMO).map((n: string) => `${n} ready`),
    );
    const csvRows = fs.readFileSync(path.join(DEMO, "pairs.csv"), "utf8").trim().split("\n").length - 1;
    expect((await get(`/api/agents/${id}/pairs`)).body.pairs).toHaveLength(csvRows);
    expect((await get(`/api/agents/${id}/evals`)).body.runs).toHaveLength(1);
    expect(readDemoSeed(dataDir)).toBeNull();
    expect((await get("/api/health")).status).toBe(200);
    expect((await searchSla(id)).body.results[0].filename).toBe("support-sla.md");
  });

  it("does not keep health at starting after a seeding that failed, and tries again on the next start", async () => {
    await removeDemoAgent();
    const broken = fs.mkdtempSync(path.join(os.tmpdir(), "kb-demo-"));
    try {
      fs.writeFileSync(path.join(broken, "empty.md"), "");
      fs.writeFileSync(path.join(broken, "pairs.csv"), "query,expected\n");
      expect(planDemoSeed({ dataDir, firstStart: true, demo: true, signedIn: false })).toBe("seed");
      await expect(seedDemo({ base, demoDir: broken, dataDir, log })).rejects.toThrow(/uploading the demo articles answered 422/);
      expect(readDemoSeed(dataDir)).toMatchObject({ agent_id: await demoAgentId(), failed: expect.any(String) });
      expect((await get("/api/health")).status).toBe(200);
    } finally {
      fs.rmSync(broken, { recursive: true, force: true });
    }
    // Owed still: the next start seeds again, and health waits for it again.
    expect(planDemoSeed({ dataDir, firstStart: false, demo: true, signedIn: false })).toBe("seed");
    expect(readDemoSeed(dataDir)).toEqual({ agent_id: await demoAgentId() });
    expect((await get("/api/health")).status).toBe(503);
  });

  it("drops an owed seeding when the next start will not seed (KB_DEMO=0 or ADMIN_PASSWORD), so health does not stay at starting", async () => {
    expect(readDemoSeed(dataDir)).not.toBeNull();
    expect(planDemoSeed({ dataDir, firstStart: false, demo: false, signedIn: false })).toBe("none");
    expect(readDemoSeed(dataDir)).toBeNull();
    expect((await get("/api/health")).status).toBe(200);

    expect(planDemoSeed({ dataDir, firstStart: true, demo: true, signedIn: true })).toBe("signed-in");
    expect(readDemoSeed(dataDir)).toBeNull();
    expect(planDemoSeed({ dataDir, firstStart: false, demo: true, signedIn: false })).toBe("none");
    expect(readDemoSeed(dataDir)).toBeNull();
  });
});
