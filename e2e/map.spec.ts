import type { Page } from "@playwright/test";
import { expect, test, uploadThroughApi } from "./fixtures";

// The map as a support lead uses it: documents uploaded, the map computed in the background and
// drawn, a dot pointed at to read its chunk, a dot clicked to open its document, a question clicked
// to open it in the inspector.

const DOCS = {
  "shipping.md": "# Shipping\n\nOrders ship within two business days from our warehouse in Leeds. Express delivery arrives the next day.\n",
  "returns.txt": "Returns. You can send an item back within 60 days. We email a prepaid return label once the parcel is booked.\n",
  "passwords.md": "# Passwords\n\nUse the forgot password link on the sign-in page; the reset email link works for one hour only.\n",
};

interface MapBody {
  status: string;
  chunks: { document_id: number; chunk_index: number; filename: string; x: number; y: number }[];
  questions: { id: number; text: string; x: number; y: number }[];
}
interface Transform {
  sx: number;
  tx: number;
  sy: number;
  ty: number;
}

/** The map as the API gives it, once computed. */
async function readyMap(page: Page, agentId: number): Promise<MapBody> {
  let body: MapBody | null = null;
  await expect
    .poll(
      async () => {
        const res = await page.request.get(`/api/agents/${agentId}/map`);
        body = (await res.json()) as MapBody;
        return res.status() === 200 && body.status === "ready" && !("stale" in body && body.stale);
      },
      { timeout: 60_000 },
    )
    .toBe(true);
  return body!;
}

/** Where a map point is on the page, by the transform the canvas says it draws with. */
async function pixelOf(page: Page, point: { x: number; y: number }) {
  const canvas = page.getByRole("img", { name: /^Map of / });
  await canvas.scrollIntoViewIfNeeded();
  const t = JSON.parse((await canvas.getAttribute("data-transform"))!) as Transform;
  const box = (await canvas.boundingBox())!;
  return { x: box.x + t.sx * point.x + t.tx, y: box.y + t.sy * point.y + t.ty };
}

/** The point farthest from every other (its dot is the only one under the pointer). */
function loneliest<P extends { x: number; y: number }>(points: P[], among: { x: number; y: number }[]): P {
  const gap = (p: P) => Math.min(...among.filter((o) => o !== p).map((o) => Math.hypot(o.x - p.x, o.y - p.y)));
  return [...points].sort((a, b) => gap(b) - gap(a))[0];
}

test("the map draws every chunk, shows a chunk's text on hover and opens its document or a question's inspector on click", async ({
  page,
  agent,
}) => {
  test.setTimeout(120_000);
  await uploadThroughApi(page, agent.id, DOCS);
  const question = "when does my parcel ship from the warehouse";
  const search = await page.request.post(`/api/agents/${agent.id}/documents/search`, { data: { query: question, top_k: 3 } });
  expect(search.status()).toBe(200);

  await page.goto(`/agents/${agent.id}/map`);
  const map = await readyMap(page, agent.id);
  expect(map.chunks.map((c) => c.filename).sort()).toEqual(Object.keys(DOCS).sort());
  expect(map.questions.map((q) => q.text)).toEqual([question]);

  const canvas = page.getByRole("img", { name: /^Map of 3 chunks of 3 documents and 1 question/ });
  await expect(canvas).toHaveAttribute("data-points", "4");
  await expect(page.getByTestId("map-summary")).toContainText("3 chunks of 3 documents and 1 question");
  const legend = page.getByRole("region", { name: "Legend" });
  for (const name of Object.keys(DOCS)) await expect(legend).toContainText(name);

  const all = [...map.chunks, ...map.questions];
  const chunk = loneliest(map.chunks, all);
  let at = await pixelOf(page, chunk);
  await page.mouse.move(at.x, at.y);
  const hover = page.getByTestId("map-hover");
  await expect(hover).toContainText(`${chunk.filename}, chunk ${chunk.chunk_index}`);
  await expect(hover).toContainText(DOCS[chunk.filename as keyof typeof DOCS].replace(/^# \w+\n\n/, "").slice(0, 40));
  // The search returned all three chunks once: each dot is sized, and read, as retrieved by one call.
  expect(map.chunks.map((c) => (c as { retrieved?: number }).retrieved)).toEqual([1, 1, 1]);
  await expect(hover).toContainText("Retrieved by 1 call in the last 30 days.");

  await page.mouse.click(at.x, at.y);
  await expect(page).toHaveURL(new RegExp(`/agents/${agent.id}/documents/${chunk.document_id}#indexed-${chunk.chunk_index}$`));
  // The chunk itself is the target on its document's page.
  await expect(page.locator(`#indexed-${chunk.chunk_index}`)).toBeInViewport();

  await page.goto(`/agents/${agent.id}/map`);
  await expect(canvas).toHaveAttribute("data-points", "4");
  at = await pixelOf(page, map.questions[0]);
  await page.mouse.move(at.x, at.y);
  await expect(hover).toContainText(question);
  await page.mouse.click(at.x, at.y);
  await expect(page).toHaveURL(new RegExp(`/agents/${agent.id}/search\\?q=${encodeURIComponent(question).replace(/%20/g, "(%20|\\+)")}$`));
});
