import { chunkText } from "../lib/core/chunking";
import { ARTICLES, expect, test, uploadThroughApi } from "./fixtures";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
const LONG = Array.from({ length: 12 }, (_, i) => `Paragraph ${i + 1} talks about warehouse topic number ${i + 1} in some detail.`).join(
  "\n",
);

test("uploads several files with a chunk preview, live progress and a result per file", async ({ page, agent }) => {
  await page.goto(`/agents/${agent.id}`);
  await expect(page.getByText("No documents yet.")).toBeVisible();

  await page.getByLabel("Files").setInputFiles([
    { name: "shipping.md", mimeType: "text/markdown", buffer: Buffer.from(ARTICLES["shipping.md"] + LONG) },
    { name: "returns.txt", mimeType: "text/plain", buffer: Buffer.from(ARTICLES["returns.txt"]) },
    { name: "photo.txt", mimeType: "text/plain", buffer: PNG },
  ]);
  const summary = page.getByTestId("preview-summary");
  const shipping = ARTICLES["shipping.md"] + LONG;
  await expect(summary).toHaveText(new RegExp(`^${chunkText(shipping, 800, 100).length} chunks from \\d+ characters, split at boundaries`));
  await page.getByLabel("Chunk size (characters)").fill("200");
  await page.getByLabel("Overlap (characters)").fill("50");
  // Fixed windows cut words; the preview follows the choice, and the upload uses it.
  await page.getByLabel("Split").selectOption("fixed");
  await expect(summary).toContainText(`${chunkText(shipping, 200, 50, "fixed").length} chunks from`);
  await expect(summary).toContainText("split fixed windows");
  await page.getByLabel("Split").selectOption("boundary");
  const smaller = chunkText(shipping, 200, 50).length;
  await expect(summary).toContainText(`${smaller} chunks from`);
  expect(smaller).toBeGreaterThan(4);
  await page.getByLabel("Overlap (characters)").fill("200");
  await expect(page.getByText(/smaller than the chunk size/)).toBeVisible();
  await page.getByLabel("Overlap (characters)").fill("50");
  await page.getByLabel("Preview of").selectOption("photo.txt");
  await expect(page.getByText(/This file will be rejected/)).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/upload-preview.png", fullPage: true });

  await expect(page.getByText("3 files selected")).toBeVisible();
  await page.getByRole("button", { name: "Upload and index" }).click();
  await expect(page.getByRole("progressbar")).toHaveCount(3);
  const progress = page.getByRole("list", { name: "Upload progress" });
  // One line per file, the chunk count said once, in the singular for one chunk.
  await expect(progress.getByRole("listitem").filter({ hasText: "shipping.md" })).toHaveText(
    `shipping.md: indexed (${smaller} chunks) · open`,
  );
  await expect(progress.getByRole("listitem").filter({ hasText: "returns.txt" })).toHaveText("returns.txt: indexed (1 chunk) · open");
  await expect(progress.getByRole("listitem").filter({ hasText: "photo.txt" })).toHaveText(/^photo\.txt: rejected — .*PNG[^—]*$/);
  // Done: the selection is cleared, so the same files are not uploaded twice by mistake.
  await expect(page.getByRole("heading", { name: "Upload finished" })).toBeVisible();
  await expect(page.getByText("3 files selected")).toHaveCount(0);
  await expect(page.getByLabel("Files")).toHaveJSProperty("value", "");
  await expect(page.getByRole("button", { name: "Upload and index" })).toBeDisabled();
  await page.screenshot({ path: "e2e/screenshots/upload-done.png", fullPage: true });
  await expect(page.getByRole("progressbar", { name: "Progress of shipping.md" })).toHaveAttribute("aria-valuenow", "100");

  const table = page.getByRole("table", { name: "Documents" });
  await expect(table.getByRole("link", { name: "shipping.md" })).toBeVisible();
  await expect(table.getByRole("link", { name: "returns.txt" })).toBeVisible();
  await expect(table.getByRole("link", { name: "photo.txt" })).toHaveCount(0);
  await expect(table.getByRole("row", { name: /shipping\.md/ })).toContainText("200 / 50 boundary");
  await page.getByLabel("Filter by name").fill("ret");
  await expect(table.getByRole("link", { name: "shipping.md" })).toHaveCount(0);
  await page.screenshot({ path: "e2e/screenshots/documents.png", fullPage: true });
});

test("opens a document with its chunk boundaries and jumps from a chunk to the inspector", async ({ page, agent }) => {
  const [doc] = await uploadThroughApi(page, agent.id, { "warehouse.txt": LONG }, { chunk_size: "300", chunk_overlap: "60" });
  await page.goto(`/agents/${agent.id}`);
  await page.getByRole("link", { name: "warehouse.txt" }).click();
  await expect(page.getByRole("heading", { name: "warehouse.txt" })).toBeVisible();
  await expect(page.getByText(`${doc.chunk_count} chunks drawn on the extracted text`)).toBeVisible();
  // Chunks end at a line or sentence and start at a word: none is cut mid-word.
  const chunks = chunkText(LONG, 300, 60);
  expect(chunks).toHaveLength(doc.chunk_count);
  await expect(page.getByText(`Chunk 0 · characters 0–${chunks[0].end}`)).toBeVisible();
  await expect(page.getByText(`Chunk 1 · characters ${chunks[1].start}–${chunks[1].end}`)).toBeVisible();
  for (const c of chunks) {
    expect(LONG[c.start - 1] ?? " ").toMatch(/\s/);
    expect(LONG[c.end] ?? " ").toMatch(/\s/);
  }
  await expect(page.getByText(/split at boundaries/)).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/document.png", fullPage: true });

  await page.getByRole("link", { name: "Inspect chunk 1" }).click();
  await expect(page).toHaveURL(new RegExp(`/agents/${agent.id}/search\\?.*expected=${doc.document_id}`));
  await expect(page.getByLabel("Query")).toHaveValue(/warehouse topic/);
  await expect(page.getByLabel("Expected document (why did it miss?)")).toHaveValue(String(doc.document_id));
  await expect(page.getByRole("status").filter({ hasText: "warehouse.txt" })).toBeVisible();
});

test("re-indexes a document with other chunk settings", async ({ page, agent }) => {
  await uploadThroughApi(page, agent.id, { "warehouse.txt": LONG });
  await page.goto(`/agents/${agent.id}`);
  await page.getByRole("link", { name: "warehouse.txt" }).click();
  await expect(page.getByRole("heading", { name: "warehouse.txt" })).toBeVisible();
  // Typing before hydration can be lost when React takes over the form.
  await page.waitForLoadState("networkidle");
  await page.getByLabel("Chunk size").fill("250");
  await page.getByLabel("Overlap").fill("25");
  await expect(page.getByLabel("Chunk size")).toHaveValue("250");
  await page.getByLabel("Split").selectOption("fixed");
  await page.getByRole("button", { name: "Re-index with these settings" }).click();
  await expect(page.getByText("Chunk 1 · characters 225–475")).toBeVisible();
  await expect(page.getByText(/chunks of 250 with 25 overlap, split fixed windows/)).toBeVisible();
});
