import http from "node:http";
import type { AddressInfo } from "node:net";
import AxeBuilder from "@axe-core/playwright";
import { expect, test as base } from "./fixtures";

/** A help-centre site the test serves and changes between syncs. */
interface HelpSite {
  origin: string;
  /** What a path answers: its status and HTML. */
  pages: Map<string, { status: number; body: string }>;
  /** The paths the sitemap lists. */
  sitemap: string[];
}

const article = (title: string, text: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p></body></html>`;

const REFUNDS = article("Refunds", "We refund an order in full within 30 days of delivery when the item comes back unused in its box.");
const EDITED = "Refunds now reach your card within five working days once the returned parcel is scanned at our depot.";
const SHIPPING = article(
  "Shipping",
  "Orders ship within two business days from our warehouse in Leeds; express delivery arrives the next day.",
);
const OLD = article("Loyalty points", "The loyalty programme closed in 2019, and its points can no longer be spent.");
const BROKEN = article("Gift vouchers", "A gift voucher is spent at checkout and never expires.");

const test = base.extend<{ site: HelpSite }>({
  site: async ({}, use) => {
    const site: HelpSite = { origin: "", pages: new Map(), sitemap: [] };
    const server = http.createServer((req, res) => {
      const path = (req.url ?? "/").split("?")[0];
      if (path === "/sitemap.xml") {
        const urls = site.sitemap.map((p) => `<url><loc>${site.origin}${p}</loc></url>`).join("");
        res
          .writeHead(200, { "content-type": "application/xml" })
          .end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`);
        return;
      }
      const page = site.pages.get(path);
      res.writeHead(page?.status ?? 404, { "content-type": "text/html; charset=utf-8" }).end(page?.body ?? "Not found");
    });
    // Only this machine's loopback: the app is told to fetch from 127.0.0.1 on this port (FETCH_ALLOW_HOSTS in playwright.config.ts).
    await new Promise<void>((resolve) => server.listen(Number(process.env.E2E_SITE_PORT), "127.0.0.1", resolve));
    site.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await use(site);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  },
});

const PATHS = ["/articles/refunds.html", "/articles/shipping.html", "/articles/old.html", "/articles/broken.html"];

test("a sitemap source: synced, changed, a failing page kept, a removal proposed and confirmed, then nothing to do", async ({
  page,
  agent,
  site,
}) => {
  test.setTimeout(120_000);
  site.sitemap = [...PATHS];
  for (const [path, body] of [
    [PATHS[0], REFUNDS],
    [PATHS[1], SHIPPING],
    [PATHS[2], OLD],
    [PATHS[3], BROKEN],
  ] as const)
    site.pages.set(path, { status: 200, body });
  const url = (path: string) => `${site.origin}${path}`;
  // A page's document is named by its host and path.
  const filename = (path: string) => `${new URL(site.origin).host}${path}`;
  const sitemap = url("/sitemap.xml");

  await page.goto(`/agents/${agent.id}`);
  await expect(page.getByRole("heading", { name: "Sources (0)" })).toBeVisible();
  // Not a URL: said beside the field, which keeps what was typed.
  await page.getByLabel("Sitemap URL").fill("not a URL");
  await page.getByRole("button", { name: "Add source" }).click();
  await expect(page.getByLabel("Sitemap URL")).toHaveAccessibleDescription(
    "The source was not added. The sitemap URL: must be an http:// or https:// URL without a user name or password.",
  );
  await expect(page.getByLabel("Sitemap URL")).toHaveValue("not a URL");
  await expect(page.getByRole("heading", { name: "Sources (0)" })).toBeVisible();
  await page.getByLabel("Sitemap URL").fill(sitemap);
  await page.getByLabel("When a page is gone").selectOption({ label: "Propose the removal" });
  await page.getByRole("button", { name: "Add source" }).click();
  await expect(page.getByRole("heading", { name: "Sources (1)" })).toBeVisible();
  const source = page.getByRole("article", { name: `Sitemap ${sitemap}` });
  await expect(source.getByText("Not synced yet: Sync now fetches its pages.")).toBeVisible();

  // The first sync adds every page; the section follows the sync until it has finished.
  const lastSync = source.getByRole("status").filter({ hasText: /^Sync #/ });
  await source.getByRole("button", { name: "Sync now" }).click();
  await expect(lastSync).toHaveText(
    /^Sync #\d+ finished at .+: 4 pages seen, 4 added, 0 changed, 0 removed, 0 removals proposed, 0 unchanged, 0 failed\.$/,
    { timeout: 30_000 },
  );
  await expect(source.getByText(/^4 pages · when a page is gone: its removal is proposed · synced only with Sync now$/)).toBeVisible();

  // The settings, changed on the page and said in the settings line; an interval under 5 changes nothing. Then set back.
  const settings = source.getByText(/^4 pages · when a page is gone: /);
  const asAdded = "4 pages · when a page is gone: its removal is proposed · synced only with Sync now";
  await source.getByText("Change settings", { exact: true }).click();
  const onRemoved = source.getByLabel("When a page is gone");
  const interval = source.getByLabel("Sync every (minutes)");
  const save = source.getByRole("button", { name: "Save settings" });
  await interval.fill("2");
  await save.click();
  await expect(interval).toHaveAccessibleDescription(
    "Blank: synced only with Sync now. At least 5. The settings were not saved. The interval must be at least 5.",
  );
  await expect(interval).toHaveValue("2");
  await expect(settings).toHaveText(asAdded);
  await interval.fill("60");
  await onRemoved.selectOption({ label: "Remove its document" });
  await save.click();
  await expect(source.getByText("Saved: when a page is gone, its document is removed; synced every 60 minutes.")).toBeVisible();
  await expect(settings).toHaveText("4 pages · when a page is gone: its document is removed · synced every 60 minutes and with Sync now");
  await expect(interval).toHaveValue("60");
  await interval.fill("");
  await onRemoved.selectOption({ label: "Propose the removal" });
  await save.click();
  await expect(source.getByText("Saved: when a page is gone, its removal is proposed; synced only with Sync now.")).toBeVisible();
  await expect(settings).toHaveText(asAdded);
  const documents = page.getByRole("table", { name: "Documents" });
  for (const path of PATHS) await expect(documents.getByRole("link", { name: filename(path), exact: true })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Documents (4)" })).toBeVisible();

  // A page's document says where it came from.
  await documents.getByRole("link", { name: filename(PATHS[0]), exact: true }).click();
  await expect(page.getByRole("heading", { name: filename(PATHS[0]), level: 2 })).toBeVisible();
  await expect(page.getByText(/^Fetched from .+, last fetched .+\.$/)).toBeVisible();
  await expect(page.getByRole("link", { name: url(PATHS[0]), exact: true })).toHaveAttribute("href", url(PATHS[0]));

  // The site changes: refunds is edited, old leaves the sitemap, broken answers 500.
  site.pages.set(PATHS[0], { status: 200, body: article("Refunds", EDITED) });
  site.sitemap = PATHS.filter((p) => p !== PATHS[2]);
  site.pages.set(PATHS[3], { status: 500, body: "Internal error" });
  await page.goto(`/agents/${agent.id}`);
  await source.getByRole("button", { name: "Sync now" }).click();
  await expect(lastSync).toHaveText(
    /^Sync #\d+ finished at .+: 3 pages seen, 0 added, 1 changed, 0 removed, 1 removal proposed, 1 unchanged, 1 failed\.$/,
    { timeout: 30_000 },
  );
  const failed = source.getByRole("table", { name: "Pages that failed" });
  await expect(failed.getByRole("row")).toHaveCount(2);
  await expect(failed.getByRole("row").nth(1).getByRole("cell")).toHaveText([url(PATHS[3]), "answered HTTP 500", /^kept as fetched .+/]);
  await expect(documents.getByRole("link", { name: filename(PATHS[3]), exact: true })).toBeVisible();
  const proposed = source.getByRole("table", { name: "Proposed removals" });
  await expect(proposed.getByRole("row")).toHaveCount(2);
  await expect(proposed.getByRole("row").nth(1).getByRole("cell").nth(0)).toHaveText(url(PATHS[2]));
  await expect(proposed.getByRole("row").nth(1).getByRole("cell").nth(1)).toHaveText(filename(PATHS[2]));
  await expect(source.getByRole("table", { name: "Syncs" }).getByRole("row")).toHaveCount(3);
  await page.screenshot({ path: "e2e/screenshots/sources.png", fullPage: true });
  const { violations } = await new AxeBuilder({ page }).include("section[aria-labelledby='sources-heading']").analyze();
  expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.help}`)).toEqual([]);

  // The inspector finds the edited text in the new version of refunds, and links to its page.
  await page.goto(`/agents/${agent.id}/search?q=${encodeURIComponent("reach your card within five working days")}&k=3`);
  const first = page.getByRole("table", { name: "Search results" }).getByRole("row").nth(1);
  await expect(first.getByRole("link", { name: filename(PATHS[0]), exact: true })).toBeVisible();
  await expect(first.getByRole("link", { name: `source page ${url(PATHS[0])}` })).toHaveAttribute("href", url(PATHS[0]));
  await expect(first).toContainText("five working days");

  // The proposed removal, confirmed: its document goes.
  await page.goto(`/agents/${agent.id}`);
  await proposed.getByRole("button", { name: `Remove ${url(PATHS[2])}` }).click();
  await expect(source.getByRole("status").filter({ hasText: "Removed 1 document." })).toBeVisible();
  await expect(documents.getByRole("link", { name: filename(PATHS[2]), exact: true })).toHaveCount(0);
  await expect(page.getByRole("heading", { name: "Documents (3)" })).toBeVisible();
  await expect(proposed).toHaveCount(0);

  // broken answers as it first did, nothing else changed: the sync has nothing to do.
  site.pages.set(PATHS[3], { status: 200, body: BROKEN });
  await source.getByRole("button", { name: "Sync now" }).click();
  await expect(lastSync).toHaveText(
    /^Sync #\d+ finished at .+: 3 pages seen, 0 added, 0 changed, 0 removed, 0 removals proposed, 3 unchanged, 0 failed\.$/,
    { timeout: 30_000 },
  );
  await expect(failed).toHaveCount(0);
  await expect(source.getByRole("table", { name: "Syncs" }).getByRole("row")).toHaveCount(4);
  await expect(page.getByRole("heading", { name: "Documents (3)" })).toBeVisible();
});
