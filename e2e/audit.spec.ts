import type { Page } from "@playwright/test";
import { chunkText as chunkKettle } from "../lib/core/chunking";
import type { RepairReport } from "../lib/index-upkeep/audit";
import { ARTICLES, expect, test, uploadThroughApi } from "./fixtures";
import { addVectors, appCollection, deleteVectors, specChroma, vectorIds } from "./spec-chroma";

const CONSISTENT = /Checked [1-9]\d* documents? and [1-9]\d* vectors?(, queried [1-9]\d* chunks? with their own vector)?: consistent/;

/** The audit's problem tables (the page's other table is the index recall per agent). */
const auditTables = (page: Page) => page.getByRole("table").filter({ hasNot: page.getByText("Index recall@10 per agent") });

test("audits the index from the header link and repairs it after a confirmation", async ({ page, agent }) => {
  await uploadThroughApi(page, agent.id, { "shipping.md": ARTICLES["shipping.md"] });
  await page.goto("/");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Index health" }).click();
  await expect(page).toHaveURL(/\/audit$/);
  await expect(page.getByRole("heading", { name: "Index health", level: 1 })).toBeVisible();
  const status = page.getByRole("status");
  await expect(status).toContainText(CONSISTENT);
  await expect(page.getByRole("heading", { name: "Orphan vectors" })).toBeVisible();
  await expect(auditTables(page)).toHaveCount(0);
  await page.screenshot({ path: "e2e/screenshots/audit.png", fullPage: true });

  await page.getByRole("button", { name: "Re-run audit" }).click();
  await expect(status).toContainText(CONSISTENT);

  // The slow check runs on request: every chunk queried with its own vector.
  await expect(page.getByRole("heading", { name: "Unreachable chunks" })).toHaveCount(0);
  await page.getByRole("checkbox", { name: /Also query every chunk with its own vector/ }).check();
  await expect(status).toContainText("with their own vector");
  await expect(status).toContainText(CONSISTENT);
  await expect(page.getByRole("heading", { name: "Unreachable chunks" })).toBeVisible();
  await page.getByRole("checkbox", { name: /Also query every chunk with its own vector/ }).uncheck();

  // Cancelling the confirmation changes nothing.
  await page.getByRole("button", { name: "Repair…" }).click();
  const confirm = page.getByRole("group", { name: "Repair the index?" });
  await expect(confirm).toContainText("found nothing to repair");
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(confirm).toBeHidden();
  await expect(status).not.toContainText("Repair removed");

  await page.getByRole("button", { name: "Repair…" }).click();
  await confirm.getByRole("button", { name: "Confirm repair" }).click();
  await expect(status).toContainText(
    "Repair removed 0 orphan vectors from 0 documents, marked 0 stuck documents failed, re-indexed 0 of 0 incomplete documents",
  );
  await expect(status).toContainText(CONSISTENT);
  await expect(page.getByRole("button", { name: "Repair…" })).toBeEnabled();
  await page.screenshot({ path: "e2e/screenshots/audit-repaired.png", fullPage: true });
});

const KETTLE =
  "Kettle care. Descale the kettle every month with white vinegar and rinse it twice. " +
  "Warranty. Every kettle carries a two year warranty against manufacturing faults. " +
  "Spare parts. Lids, filters and power bases can be ordered from the spares catalogue. " +
  "Recycling. Old kettles can be dropped at any store for free recycling of the metal. " +
  "Safety. Never fill the kettle above the maximum line or boil it without any water.";
const CHUNK_SIZE = 80;
/** The text of one chunk (no overlap, the default strategy): what the app stored for chunk `i`. */
const chunkText = (i: number) => chunkKettle(KETTLE, CHUNK_SIZE, 0)[i].text;
const ORPHAN_DOC = 999_999;

interface DocumentRow {
  id: number;
  filename: string;
  status: string;
  chunk_count: number;
  embedding_model: string;
}

async function documentsOf(page: Page, agentId: number): Promise<DocumentRow[]> {
  const res = await page.request.get(`/api/agents/${agentId}/documents`);
  expect(res.ok()).toBe(true);
  return (await res.json()).documents;
}

async function search(page: Page, agentId: number, query: string) {
  const res = await page.request.post(`/api/agents/${agentId}/documents/search`, { data: { query, top_k: 10 } });
  expect(res.status()).toBe(200);
  return (await res.json()).results as { document_id: number; chunk_index: number; chunk_text: string }[];
}

test("finds vectors deleted from and added to Chroma behind the app's back, and repairs them", async ({ page, agent }) => {
  const [doc] = await uploadThroughApi(
    page,
    agent.id,
    { "kettle-care.txt": KETTLE },
    {
      chunk_size: String(CHUNK_SIZE),
      chunk_overlap: "0",
    },
  );
  expect(doc.chunk_count).toBeGreaterThanOrEqual(4);
  const row = (await documentsOf(page, agent.id)).find((d) => d.id === doc.document_id);
  expect(row?.status).toBe("ready");

  // Break the index for real, through Chroma's own REST API: two of the document's vectors
  // go, and a vector no document accounts for appears in the agent's name.
  const chroma = specChroma();
  const collection = await appCollection(chroma, row!.embedding_model);
  const gone = [`doc${doc.document_id}#1`, `doc${doc.document_id}#2`];
  await deleteVectors(chroma, collection, { ids: gone, where: { agent_id: agent.id } });
  const dimension = Number(collection.metadata?.embedding_dimension);
  expect(dimension).toBeGreaterThan(0);
  await addVectors(chroma, collection, {
    ids: [`doc${ORPHAN_DOC}#0`],
    embeddings: [Array.from({ length: dimension }, (_, i) => (i === 0 ? 1 : 0))],
    metadatas: [{ agent_id: agent.id, document_id: ORPHAN_DOC, filename: "ghost.txt", chunk_index: 0, start: 0, end: 5 }],
    documents: ["ghost"],
  });
  const kept = Array.from({ length: doc.chunk_count }, (_, i) => `doc${doc.document_id}#${i}`).filter((id) => !gone.includes(id));
  expect((await vectorIds(chroma, collection, { agent_id: agent.id })).sort()).toEqual([...kept, `doc${ORPHAN_DOC}#0`].sort());
  // Ranked exactly from the app's own copy of the vectors, searches still find the parts Chroma lost.
  expect((await search(page, agent.id, chunkText(1))).map((r) => r.chunk_index)).toContain(1);

  await page.goto("/audit");
  const status = page.getByRole("status");
  await expect(status).toContainText(
    /orphan vectors? from [1-9]\d* documents?, [1-9]\d* documents? with missing vectors, [1-9]\d* count mismatch/,
  );

  const orphan = page
    .getByRole("table", { name: "Orphan vectors" })
    .getByRole("row")
    .filter({ hasText: agent.name })
    .filter({ hasText: `document ${ORPHAN_DOC}` });
  await expect(orphan).toHaveCount(1);
  await expect(orphan.getByRole("cell")).toHaveText([agent.name, `document ${ORPHAN_DOC}`, collection.name, "1", `doc${ORPHAN_DOC}#0`]);

  const docName = new RegExp(`^kettle-care\\.txt #${doc.document_id}$`);
  const expected = String(doc.chunk_count);
  const found = String(doc.chunk_count - gone.length);
  for (const title of ["Missing vectors", "Count mismatches"]) {
    const incomplete = page
      .getByRole("table", { name: title })
      .getByRole("row")
      .filter({ has: page.getByRole("link", { name: docName }) });
    await expect(incomplete).toHaveCount(1);
    await expect(incomplete.getByRole("cell")).toHaveText([agent.name, docName, expected, found, gone.join(", ")]);
  }
  await page.screenshot({ path: "e2e/screenshots/audit-problems.png", fullPage: true });

  // The rows link to the agent and to the document.
  const missing = page.getByRole("table", { name: "Missing vectors" });
  await missing.getByRole("link", { name: agent.name }).click();
  await expect(page.getByRole("heading", { name: agent.name, level: 1 })).toBeVisible();
  await page.goBack();
  await missing.getByRole("link", { name: docName }).click();
  await expect(page.getByRole("heading", { name: "kettle-care.txt" })).toBeVisible();
  await page.goBack();
  await expect(missing.getByRole("link", { name: docName })).toBeVisible();

  await page.getByRole("button", { name: "Repair…" }).click();
  const confirm = page.getByRole("group", { name: "Repair the index?" });
  await expect(confirm).toContainText(/remove [1-9]\d* orphan vectors?; re-index [1-9]\d* incomplete documents? from the stored text/);
  const repaired = page.waitForResponse((r) => r.url().endsWith("/api/audit/repair") && r.request().method() === "POST");
  await confirm.getByRole("button", { name: "Confirm repair" }).click();
  const repair = (await (await repaired).json()) as RepairReport;
  expect(repair.removed_orphans).toContainEqual({ agent_id: agent.id, document_id: ORPHAN_DOC, vectors: 1 });
  const mine = repair.reindexed.filter((r) => r.document_id === doc.document_id);
  expect(mine).toEqual([expect.objectContaining({ outcome: "replaced" })]);
  const newId = mine[0].new_document_id!;
  expect(newId).not.toBe(doc.document_id);
  // Every re-index succeeded (ours among them), and nothing is left inconsistent.
  await expect(status).toContainText(
    /Repair removed [1-9]\d* orphan vectors? from [1-9]\d* documents?, marked \d+ stuck documents? failed, re-indexed (\d+) of \1 incomplete documents?/,
  );
  await expect(status).toContainText(CONSISTENT);
  await expect(auditTables(page)).toHaveCount(0);
  await page.screenshot({ path: "e2e/screenshots/audit-repaired-problems.png", fullPage: true });

  // Through the API: the re-indexed version replaced the old one and all of it is found again.
  const docs = await documentsOf(page, agent.id);
  expect(docs.map((d) => [d.id, d.filename, d.status, d.chunk_count])).toEqual([[newId, "kettle-care.txt", "ready", doc.chunk_count]]);
  expect((await vectorIds(chroma, collection, { agent_id: agent.id })).sort()).toEqual(
    Array.from({ length: doc.chunk_count }, (_, i) => `doc${newId}#${i}`).sort(),
  );
  for (const i of [1, 2]) {
    const [best] = await search(page, agent.id, chunkText(i));
    expect(best).toMatchObject({ document_id: newId, chunk_index: i, chunk_text: chunkText(i) });
  }
});

test("shows the server's message when the vector store is down, and audits again once it is back", async ({ page }) => {
  // The app gives up on a Chroma call after CHROMA_TIMEOUT_MS (15 s by default).
  test.setTimeout(120_000);
  const chroma = specChroma();
  const status = page.getByRole("status");
  process.kill(chroma.pid, "SIGSTOP");
  try {
    // The banner reuses a health check younger than 5 s; once that is stale, its own short
    // deadline holds even while a page renders. Waited for on the agents page: every open of
    // the audit page starts an audit, and one runs at a time (a second meanwhile is a 409).
    const banner = page.getByRole("alert").filter({ hasText: "Chroma did not answer within 3 s" });
    await expect(async () => {
      await page.goto("/");
      await expect(banner).toBeVisible({ timeout: 1_000 });
    }).toPass({ timeout: 40_000 });
    await page.goto("/audit");
    await expect(banner).toBeVisible();
    await expect(status).toContainText("Auditing the index");
    await expect(status).toContainText(/Could not run the audit: The vector store \(Chroma\) did not answer/, { timeout: 45_000 });
    await expect(auditTables(page)).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Re-run audit" })).toBeEnabled();
    await page.screenshot({ path: "e2e/screenshots/audit-chroma-down.png", fullPage: true });
  } finally {
    process.kill(chroma.pid, "SIGCONT");
  }
  await page.getByRole("button", { name: "Re-run audit" }).click();
  await expect(status).toContainText(/Checked \d+ documents? and \d+ vectors?: /, { timeout: 30_000 });
  await expect(status).not.toContainText("Could not run the audit");
});

test("rebuilds the vector index after a confirmation: a new collection, the same answers", async ({ page, agent }) => {
  const doc = (await uploadThroughApi(page, agent.id, { "shipping.md": ARTICLES["shipping.md"] }))[0];
  const model = (await documentsOf(page, agent.id))[0].embedding_model;
  const chroma = specChroma();
  const before = await appCollection(chroma, model);
  const answer = async () =>
    (await search(page, agent.id, "how long does shipping take")).map((r) => [
      r.document_id,
      r.chunk_index,
      (r as { score?: number }).score?.toFixed(4),
    ]);
  const answered = await answer();
  expect(answered.some(([id]) => id === doc.document_id)).toBe(true);

  await page.goto("/audit");
  const progress = page.getByTestId("rebuild-status");
  // Cancelling changes nothing.
  await page.getByRole("button", { name: "Rebuild index…" }).click();
  const confirm = page.getByRole("group", { name: "Confirm the rebuild" });
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(confirm).toBeHidden();
  expect((await appCollection(chroma, model)).id).toBe(before.id);

  await page.getByRole("button", { name: "Rebuild index…" }).click();
  await confirm.getByRole("button", { name: "Confirm rebuild" }).click();
  await expect(progress).toContainText(/Rebuilt the index: [\d,]+ vectors copied in [\d.]+ s\./, { timeout: 60_000 });
  await page.screenshot({ path: "e2e/screenshots/audit-rebuilt.png", fullPage: true });
  const after = await appCollection(chroma, model);
  expect(after.id).not.toBe(before.id);
  expect(after.name).toBe(before.name);
  expect(await answer()).toEqual(answered);
  // The index check then runs over every chunk of the new graph.
  await expect
    .poll(async () => (await (await page.request.get("/api/health")).json()).index?.recheck, { timeout: 60_000 })
    .toMatchObject({ state: "idle", reason: "the index was rebuilt", still_unreachable: 0 });
  // Through the API the request answers at once (202) and the outcome is in /api/health.
  const asked = await page.request.post("/api/audit/rebuild");
  expect(asked.status()).toBe(202);
  const { rebuild: started } = await asked.json();
  expect(started).toMatchObject({ state: "running", reason: "asked for on Index health" });
  await expect
    .poll(async () => (await (await page.request.get("/api/health")).json()).index.rebuild, { timeout: 60_000 })
    .toMatchObject({ state: "idle", started_at: started.started_at, last_error: null });
  expect((await appCollection(chroma, model)).id).not.toBe(after.id);
  expect(await answer()).toEqual(answered);
  // The audit finds the new index consistent, and uploads work against it.
  await expect(page.getByRole("status")).toContainText(CONSISTENT);
  const next = (await uploadThroughApi(page, agent.id, { "returns.txt": ARTICLES["returns.txt"] }))[0];
  expect(await vectorIds(chroma, await appCollection(chroma, model), { document_id: next.document_id })).toHaveLength(next.chunk_count);
});
