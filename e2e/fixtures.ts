import { test as base, expect, type Page } from "@playwright/test";

export interface AgentFixture {
  id: number;
  name: string;
}

/** A fresh agent per test, created through the API and deleted afterwards. */
export const test = base.extend<{ agent: AgentFixture }>({
  // Every navigation waits until React has hydrated the page: typed text is then never lost.
  page: async ({ page }, use) => {
    const goto = page.goto.bind(page);
    page.goto = async (url, options) => {
      const res = await goto(url, options);
      await page.waitForFunction(() => document.documentElement.dataset.hydrated === "true");
      return res;
    };
    await use(page);
  },
  agent: async ({ request }, use, testInfo) => {
    const name = `E2E ${testInfo.title.slice(0, 40)} ${Date.now()}`;
    const res = await request.post("/api/agents", { data: { name, tools: ["document_search"] } });
    expect(res.status()).toBe(201);
    const agent = (await res.json()) as AgentFixture;
    await use(agent);
    await request.delete(`/api/agents/${agent.id}`);
  },
});

export { expect };

export const ARTICLES = {
  "shipping.md": "# Shipping\n\nOrders ship within two business days from our warehouse in Leeds. Express delivery arrives the next day.\n",
  "returns.txt":
    "Returns. You can send an item back within 60 days. We email a prepaid return label; refunds follow once the parcel arrives.\n",
};

export async function uploadThroughApi(
  page: Page,
  agentId: number,
  files: Record<string, string | Uint8Array>,
  fields: Record<string, string> = {},
) {
  const form = new FormData();
  for (const [name, content] of Object.entries(files)) form.append("files", new Blob([content as BlobPart]), name);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const res = await page.request.fetch(`/api/agents/${agentId}/documents`, { method: "POST", multipart: form });
  expect(res.status()).toBe(201);
  return (await res.json()).documents as { document_id: number; filename: string; chunk_count: number }[];
}
