import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Page } from "@playwright/test";
import { expect, uploadThroughApi, type AgentFixture } from "./fixtures";

/** One page of the app, opened at `path` and ready once `ready` resolves. */
export interface AppPage {
  name: string;
  path: string;
  ready: (page: Page) => Promise<void>;
}

const DEMO = ["support-sla.md", "refund-policy.md", "billing-invoices.md", "data-export.md", "account-access.md"];
// A long hyphenated name, to see that a filename breaks only where it must.
const LONG_NAME = "password-reset-and-account-recovery-checklist.txt";

/**
 * A source of three help pages served on 127.0.0.1 for the time of two syncs: one page fails both times,
 * one is gone (404) at the second, so the Sources section shows its failures, a proposed removal and its syncs.
 */
async function seedSource(page: Page, agent: AgentFixture) {
  let second = false;
  const server = http.createServer((req, res) => {
    const at = (req.url ?? "/").split("?")[0];
    const status = at === "/help/broken.html" ? 500 : at === "/help/moved.html" && second ? 404 : 200;
    res
      .writeHead(status, { "content-type": "text/html; charset=utf-8" })
      .end(`<!doctype html><title>${at}</title><p>Help page ${at}: where to find your invoices.</p>`);
  });
  // The port the app may fetch 127.0.0.1 on (FETCH_ALLOW_HOSTS in playwright.config.ts).
  await new Promise<void>((resolve) => server.listen(Number(process.env.E2E_SITE_PORT), "127.0.0.1", resolve));
  try {
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const urls = ["/help/invoices.html", "/help/moved.html", "/help/broken.html"].map((p) => origin + p);
    const created = await page.request.post(`/api/agents/${agent.id}/sources`, { data: { urls, on_removed: "propose" } });
    expect(created.status()).toBe(201);
    const sourceId = (await created.json()).source.id as number;
    for (const expected of [
      { added: 2, failed: 1 },
      { proposed: 1, failed: 1 },
    ]) {
      const synced = await page.request.post(`/api/agents/${agent.id}/sources/${sourceId}/sync`, { data: { wait: true } });
      expect((await synced.json()).sync).toMatchObject({ status: "done", ...expected });
      second = true;
    }
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/**
 * Gives the agent documents, labeled pairs (one deliberately wrong, one unanswerable), two finished runs in
 * two modes, a sweep and a synced source, so the dashboard shows its curve, mode comparison, calibration, sweep, history and comparison;
 * returns every page of the app with what to wait for on it.
 */
export async function seedAppPages(page: Page, agent: AgentFixture): Promise<AppPage[]> {
  const files = Object.fromEntries(DEMO.map((f) => [f, fs.readFileSync(path.join("demo", f), "utf8")]));
  files[LONG_NAME] =
    "Password reset checklist. Confirm the user's identity, send the reset link, and check the spam folder when it does not arrive.";
  const docs = await uploadThroughApi(page, agent.id, files);
  const idOf = (f: string) => docs.find((d) => d.filename === f)!.document_id;

  const pairs = await page.request.post(`/api/agents/${agent.id}/pairs`, {
    data: [
      { query: "support SLA first response", expected: "support-sla.md" },
      { query: "full refund within 30 days", expected: "refund-policy.md" },
      { query: "download invoices as PDF", expected: "support-sla.md", note: "deliberately wrong" },
      { query: "forgot my password", expected: LONG_NAME },
      { query: "lunch menu in the canteen", expected: "", answerable: false },
    ],
  });
  expect((await pairs.json()).accepted).toBe(5);
  for (const mode of ["vector", "keyword"]) {
    expect((await page.request.post(`/api/agents/${agent.id}/evals`, { data: { k: 3, mode } })).status()).toBe(201);
  }
  // A finished chunk-settings sweep, for its chart and table; the current setting is one of the two.
  const sweep = await page.request.post(`/api/agents/${agent.id}/sweeps`, {
    data: {
      k: 3,
      settings: [
        { chunk_size: 800, chunk_overlap: 100, chunk_strategy: "boundary" },
        { chunk_size: 400, chunk_overlap: 0, chunk_strategy: "fixed" },
      ],
    },
  });
  expect(sweep.ok()).toBe(true);
  const sweepId = (await sweep.json()).id as number;
  await expect
    .poll(async () => (await (await page.request.get(`/api/agents/${agent.id}/sweeps/${sweepId}`)).json()).status, { timeout: 60_000 })
    .toBe("done");

  // The agent's own questions, for the Questions tab: one asked in two wordings, one marked a gap.
  for (const query of ["support SLA first response", "what is the support SLA first response", "lunch menu in the canteen"]) {
    expect((await page.request.post(`/api/agents/${agent.id}/documents/search`, { data: { query, top_k: 3 } })).status()).toBe(200);
  }
  const asked = (await (await page.request.get(`/api/agents/${agent.id}/questions`)).json()).questions as { id: number; text: string }[];
  const lunch = asked.find((q) => q.text === "lunch menu in the canteen")!;
  expect((await page.request.post(`/api/agents/${agent.id}/questions/${lunch.id}`, { data: { action: "gap" } })).status()).toBe(200);
  // A draft that switches the agent to hybrid mode, for the Drafts tab.
  const draft = await page.request.post(`/api/agents/${agent.id}/drafts`, {
    data: { name: "Try hybrid", fix: { kind: "mode", retrieval_mode: "hybrid" } },
  });
  expect(draft.status()).toBe(201);
  // Last, so the pages of its source are in none of the runs, sweeps or questions above.
  await seedSource(page, agent);

  const base = `/agents/${agent.id}`;
  const heading = (name: string | RegExp, level?: number) => async (p: Page) => {
    await expect(p.getByRole("heading", { name, level })).toBeVisible();
  };
  return [
    {
      name: "home",
      path: "/",
      ready: async (p) => {
        await expect(p.getByRole("link", { name: agent.name, exact: true })).toBeVisible();
      },
    },
    {
      name: "documents",
      path: base,
      ready: async (p) => {
        await expect(p.getByRole("table", { name: "Documents" }).getByRole("link", { name: LONG_NAME })).toBeVisible();
        await expect(p.getByRole("article", { name: "3 page URLs" }).getByRole("table", { name: "Proposed removals" })).toBeVisible();
      },
    },
    { name: "document", path: `${base}/documents/${idOf(LONG_NAME)}`, ready: heading(LONG_NAME, 2) },
    {
      name: "inspector",
      path: `${base}/search?q=${encodeURIComponent("download invoices as PDF")}&k=5&expected=${idOf("support-sla.md")}`,
      ready: async (p) => {
        await expect(p.getByRole("table", { name: "Search results" }).getByRole("row")).toHaveCount(6);
        await expect(p.getByRole("img", { name: /Distances of the first/ })).toBeVisible();
      },
    },
    {
      name: "recall",
      path: `${base}/eval`,
      ready: async (p) => {
        await expect(p.getByRole("heading", { name: /^Run #\d+$/ })).toBeVisible();
        await expect(p.getByRole("img", { name: /Run history trend/ })).toBeVisible();
        await expect(p.getByRole("img", { name: "Recall@3 by chunk setting" })).toBeVisible();
      },
    },
    {
      name: "questions",
      path: `${base}/questions`,
      ready: async (p) => {
        await expect(p.getByRole("table", { name: "The agent's questions" })).toBeVisible();
        await expect(p.getByRole("table", { name: "Gaps" })).toBeVisible();
      },
    },
    { name: "pairs", path: `${base}/eval/pairs`, ready: heading("5 labeled pairs") },
    { name: "drafts", path: `${base}/drafts`, ready: heading(/^Try hybrid/, 2) },
    {
      name: "map",
      path: `${base}/map`,
      ready: async (p) => {
        // Computed in the background on the first visit: a few seconds for these documents.
        await expect(p.getByRole("img", { name: /^Map of / })).toBeVisible({ timeout: 60_000 });
      },
    },
    { name: "collisions", path: `${base}/collisions`, ready: heading(/^\d+ collisions?$/, 2) },
    { name: "settings", path: `${base}/settings`, ready: heading("Delete this agent") },
    { name: "tokens", path: "/settings/tokens", ready: heading("API tokens", 1) },
    {
      name: "audit",
      path: "/audit",
      ready: async (p) => {
        await expect(p.getByRole("status")).toContainText(/Checked \d+ documents?/);
      },
    },
    { name: "not-found", path: `${base}/documents/999999999`, ready: heading("Not found") },
  ];
}
