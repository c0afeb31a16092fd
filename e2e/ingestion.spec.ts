import { TOPIC_PAGES, buildPdf } from "../test/fixtures/extract/pdf";
import { SETTINGS_SCREEN, drawScreenshot } from "../test/fixtures/extract/images";
import { expect, test, uploadThroughApi } from "./fixtures";

/** Whether the viewer's canvas holds ink (any pixel that is not white), and a fingerprint of what it shows. */
const canvasInk = (page: import("@playwright/test").Page) =>
  page.getByTestId("pdf-page").evaluate((c: HTMLCanvasElement) => {
    const data = c.getContext("2d")!.getImageData(0, 0, c.width, c.height).data;
    let ink = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i] < 200 || data[i + 1] < 200 || data[i + 2] < 200) ink++;
    return { ink, url: c.toDataURL() };
  });

test("a PDF's chunks show their pages, and a page link opens the PDF at that page", async ({ page, agent }) => {
  const [doc] = await uploadThroughApi(
    page,
    agent.id,
    { "policies.pdf": buildPdf(TOPIC_PAGES) },
    { chunk_size: "200", chunk_overlap: "40" },
  );
  await page.goto(`/agents/${agent.id}/documents/${doc.document_id}`);
  await expect(page.getByRole("link", { name: "Open the PDF (3 pages)" })).toBeVisible();
  const labels = page.getByTestId("chunk-pages");
  await expect(labels.first()).toHaveText(/^p\. 1:/);
  await expect(labels.last()).toHaveText(/^p\. 3:/);
  await expect(labels.filter({ hasText: /^pp\. \d–\d/ })).not.toHaveCount(0);

  // The last chunk's page link opens the viewer at page 3, drawn by pdf.js.
  await labels.last().click();
  await expect(page).toHaveURL(/\/view\?page=3$/);
  const canvas = page.getByTestId("pdf-page");
  await expect(canvas).toHaveAttribute("data-rendered-page", "3");
  await expect(page.getByTestId("pdf-page-count")).toHaveText("of 3");
  const third = await canvasInk(page);
  expect(third.ink).toBeGreaterThan(500);

  // Previous page: page 2, another picture, and the address follows.
  await page.getByRole("button", { name: "Previous page" }).click();
  await expect(canvas).toHaveAttribute("data-rendered-page", "2");
  await expect(page).toHaveURL(/\/view\?page=2$/);
  const second = await canvasInk(page);
  expect(second.ink).toBeGreaterThan(500);
  expect(second.url).not.toBe(third.url);
  // A page number past the end goes to the last page.
  await page.getByLabel("Page", { exact: true }).fill("9");
  await page.getByRole("button", { name: "Go" }).click();
  await expect(canvas).toHaveAttribute("data-rendered-page", "3");
  await expect(page.getByRole("button", { name: "Next page" })).toBeDisabled();

  // The inspector's results carry the page too.
  await page.goto(`/agents/${agent.id}/search`);
  await page.getByLabel("Query").fill("couriers tracking parcels delivery");
  const first = page.getByRole("table", { name: "Search results" }).getByRole("row").nth(1);
  await expect(first.getByTestId("chunk-pages")).toHaveText(/^pp?\. [23]/);
});

test("a document without a kept file says so in the viewer; a table's chunks show their columns; OCR is reported", async ({
  page,
  agent,
}) => {
  const rows = Array.from({ length: 40 }, (_, i) => `| Plan ${i + 1} | ${10 + i} EUR | ${i + 2} seats |`);
  const table = ["# Prices", "", "| Plan | Monthly price | Seats |", "| --- | --- | --- |", ...rows].join("\n");
  const docs = await uploadThroughApi(
    page,
    agent.id,
    { "prices.md": table, "settings.png": drawScreenshot(SETTINGS_SCREEN).png },
    { chunk_size: "300", chunk_overlap: "0" },
  );
  const prices = docs.find((d) => d.filename === "prices.md")!;
  const screenshot = docs.find((d) => d.filename === "settings.png")!;

  await page.goto(`/agents/${agent.id}/documents/${prices.document_id}/view?page=2`);
  await expect(page.getByText(/The file of this document is not kept/)).toBeVisible();

  // A chunk of rows without the header shows the columns it is indexed with.
  await page.goto(`/agents/${agent.id}/search`);
  await page.getByLabel("Query").fill("monthly price of plan 37");
  const hit = page.getByRole("table", { name: "Search results" }).getByRole("row").nth(1);
  await expect(hit).toContainText("Plan 37");
  await expect(hit.getByTestId("chunk-context")).toHaveText("Table columns: | Plan | Monthly price | Seats |");

  await page.goto(`/agents/${agent.id}/documents/${screenshot.document_id}`);
  await expect(page.getByTestId("ocr-summary")).toHaveText(/^Read by OCR.*confidence \d+%/);
});
