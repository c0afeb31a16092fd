import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as agents from "@/app/api/agents/route";
import * as agent from "@/app/api/agents/[id]/route";
import * as pairs from "@/app/api/agents/[id]/pairs/route";
import * as evals from "@/app/api/agents/[id]/evals/route";
import * as evalRun from "@/app/api/agents/[id]/evals/[runId]/route";
import * as calibration from "@/app/api/agents/[id]/evals/[runId]/calibration/route";
import { ARTICLES, ingest, newAgent } from "@/test/helpers";

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

// The app's own route handlers behind a real HTTP server, so the CLI talks HTTP exactly as in CI.
const ROUTES: [string, RegExp, Handler][] = [
  ["GET", /^\/api\/agents$/, agents.GET as Handler],
  ["GET", /^\/api\/agents\/(?<id>[^/]+)$/, agent.GET as Handler],
  ["POST", /^\/api\/agents\/(?<id>[^/]+)\/pairs$/, pairs.POST as Handler],
  ["POST", /^\/api\/agents\/(?<id>[^/]+)\/evals$/, evals.POST as Handler],
  ["GET", /^\/api\/agents\/(?<id>[^/]+)\/evals\/(?<runId>[^/]+)$/, evalRun.GET as Handler],
  ["GET", /^\/api\/agents\/(?<id>[^/]+)\/evals\/(?<runId>[^/]+)\/calibration$/, calibration.GET as Handler],
];

let server: http.Server;
let url: string;
let name: string;
let agentId: number;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kb-cli-"));

beforeAll(async () => {
  const a = newAgent("cli gate");
  [name, agentId] = [a.name, a.id];
  for (const [n, text] of Object.entries(ARTICLES)) await ingest(a.id, `${n}.txt`, text);
  server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const pathname = new URL(req.url!, "http://x").pathname;
    const match = ROUTES.map(([m, re, h]) => [m === req.method && re.exec(pathname), h] as const).find(([m]) => m);
    if (!match) return void res.writeHead(404).end("{}");
    const request = new Request(`http://x${req.url}`, {
      method: req.method,
      headers: req.headers as Record<string, string>,
      body: req.method === "GET" ? undefined : Buffer.concat(chunks),
    });
    const response = await match[1](request, { params: Promise.resolve({ ...(match[0] as RegExpExecArray).groups }) });
    res.writeHead(response.status, Object.fromEntries(response.headers)).end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  fs.rmSync(dir, { recursive: true, force: true });
});

function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["scripts/eval.mjs", "--url", url, ...args], { cwd: path.resolve(import.meta.dirname, "..") });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => resolve({ code: code ?? -1, out, err }));
  });
}

function file(nameOf: string, text: string) {
  const p = path.join(dir, nameOf);
  fs.writeFileSync(p, text);
  return p;
}

describe("npm run eval", () => {
  it("imports the pairs file, prints every pair and the summary, and passes above --min-recall", async () => {
    const csv = file(
      "pairs.csv",
      "query,expected\nsupport SLA first response,sla.txt\nfull refund 30 days,refunds.txt\nforgot password link,password.txt\ninvoices downloaded as PDF,sla.txt\n",
    );
    const res = await cli("--agent", name, "--pairs", csv, "--k", "1", "--min-recall", "0.5");
    expect(res.err).toBe("");
    expect(res.code).toBe(0);
    expect(res.out).toContain("pairs.csv: 4 new pairs, 0 already present, 0 rejected.");
    expect(res.out).toMatch(/^hit\s+1\s+0\.\d{4}\s+sla\.txt\s+support SLA first response$/m);
    expect(res.out).toMatch(/^MISS\s+\d+\s+\d\.\d{4}\s+sla\.txt\s+invoices downloaded as PDF$/m);
    expect(res.out).toContain("recall@1   75.0%  (3 of 4 pairs in the top 1)");
    expect(res.out).toMatch(/^Run #\d+ of agent .*: local-hash-glove-v2-1024, queries weighted \(agent-idf-v1\), 4 documents/m);
    expect(res.out).toContain("PASS: recall@1 75.0% meets --min-recall 50.0%.");
  });

  it("exits 1 when recall@k is below --min-recall, finding the agent by id", async () => {
    const res = await cli("--agent", String(agentId), "--k", "1", "--min-recall", "0.8");
    expect(res.code).toBe(1);
    expect(res.out).toContain("FAIL: recall@1 75.0% is below --min-recall 80.0%.");
  });

  it("with --suggest-cut says why no cut can be calibrated, then recommends one once there are unanswerable pairs", async () => {
    const before = await cli("--agent", name, "--k", "3", "--suggest-cut");
    expect(before.code).toBe(0);
    expect(before.out).toContain("No-match cut: not calibrated. No unanswerable pairs");
    const off = file(
      "off.jsonl",
      [
        '{"query":"recipe for banana bread","expected":"","answerable":false}',
        '{"query":"tides tonight in Leeds","answerable":false}',
      ].join("\n"),
    );
    const after = await cli("--agent", name, "--pairs", off, "--k", "3", "--suggest-cut");
    expect(after.err).toBe("");
    expect(after.out).toContain("off.jsonl: 2 new pairs, 0 already present, 0 rejected.");
    expect(after.out).toMatch(/^(refused|ANSWERED)\s+—\s+\d\.\d{4}\s+\(none: unanswerable\)\s+recipe for banana bread$/m);
    expect(after.out).toContain("2 unanswerable (no expected document): left out of recall and MRR");
    expect(after.out).toMatch(
      /^Recommended no-match cut: 0\.\d+: answers [\d.]+% of 4 answerable pairs at k = 3, refuses [\d.]+% of 2 unanswerable \(balanced [\d.]+%\)\.$/m,
    );
    expect(after.out).toMatch(
      /^At the current cut \(none\): answers [\d.]+% of 4 answerable pairs at k = 3, refuses 0\.0% of 2 unanswerable/m,
    );
    expect(after.out).toMatch(new RegExp(`PATCH /api/agents/${agentId} \\{"max_distance": 0\\.\\d+\\}`));
  });

  it("exits 2 for a rejected pairs file, an unknown agent or bad arguments, without running", async () => {
    const bad = await cli("--agent", name, "--pairs", file("bad.csv", "x,nowhere.md\n"), "--min-recall", "0");
    expect(bad.code).toBe(2);
    expect(bad.out).toContain("line 1: unknown document");
    expect(bad.out).not.toContain("recall@");
    expect((await cli("--agent", "no such agent")).code).toBe(2);
    const usage = await cli("--agent", name, "--k", "50");
    expect(usage).toMatchObject({ code: 2, err: expect.stringContaining("--k must be an integer from 1 to 20.") });
  });
});
