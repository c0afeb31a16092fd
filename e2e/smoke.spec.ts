import fs from "node:fs";
import { expect, test } from "@playwright/test";

const ARTICLES = fs.readdirSync("demo").filter((name) => name.endsWith(".md")).length;

test("the demo agent is there on first start and finds the SLA article", async ({ page, request }) => {
  // The demo agent is created through the API just after start-up.
  await expect(async () => {
    await page.goto("/");
    await expect(page.getByRole("link", { name: "Support demo", exact: true })).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 60_000 });
  await expect(
    page
      .getByRole("row", { name: /Support demo/ })
      .getByRole("cell")
      .nth(1),
  ).toHaveText(String(ARTICLES));
  await page.screenshot({ path: "e2e/screenshots/agents.png", fullPage: true });

  const res = await request.post("/agents/1/documents/search", { data: { query: "support SLA", top_k: 3 } });
  expect(res.status()).toBe(200);
  const body = await res.json();
  expect(body.query).toBe("support SLA");
  expect(body.results).toHaveLength(3);
  expect(body.results[0].filename).toBe("support-sla.md");
  // The original path is a rewrite of the API route: the same answer on both.
  const direct = await request.post("/api/agents/1/documents/search", { data: { query: "support SLA", top_k: 3 } });
  expect(direct.status()).toBe(200);
  expect(await direct.json()).toEqual(body);
  // Served from a pages API route: the same security headers as every other route, and the
  // results go out uncompressed (no-transform) even to a client that accepts gzip.
  const headers = direct.headers();
  expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["content-type"]).toContain("application/json");
  expect(headers["cache-control"]).toContain("no-transform");
  expect(headers["content-encoding"]).toBeUndefined();
  const get = await request.get("/api/agents/1/documents/search");
  expect(get.status()).toBe(405);

  const health = await request.get("/api/health");
  expect(health.status()).toBe(200);
});
