import type { Page } from "@playwright/test";
import { BASE } from "../test/collision-set";
import { expect, test, uploadThroughApi } from "./fixtures";

// A price list, a verbatim copy of it, a copy with last year's prices and an unrelated article:
// the collisions page shows the conflict with the differing prices marked, the outdated copy is
// removed in a draft, served until that draft is published, and gone from the page afterwards.

const PRICING = BASE["pricing.md"];
const OLD_PRICING = PRICING.replace("$12", "$10").replace("$29", "$25");
const FILES = {
  "pricing.md": PRICING,
  // A trailing line break: another file, the same words.
  "pricing-copy.md": `${PRICING}\n`,
  "pricing-old.md": OLD_PRICING,
  "password.md": BASE["password.md"],
};
const STARTER = "The Starter plan costs $12 per user per month and includes 10 GB of storage for each user.";
const STARTER_OLD = STARTER.replace("$12", "$10");

async function servedNames(page: Page, agentId: number): Promise<string[]> {
  const res = await page.request.get(`/api/agents/${agentId}/documents`);
  expect(res.status()).toBe(200);
  return ((await res.json()).documents as { filename: string }[]).map((d) => d.filename).sort();
}

test("a conflicting copy is shown with its differing prices, removed in a draft, and gone once the draft is published; a verbatim copy is switched off through a draft", async ({
  page,
  agent,
}) => {
  test.setTimeout(120_000);
  const uploaded = await uploadThroughApi(page, agent.id, FILES);
  const id = Object.fromEntries(uploaded.map((d) => [d.filename, d.document_id]));
  // A pair names its documents in the order of their ids.
  const pair = (x: string, y: string) => (id[x] < id[y] ? `${x} and ${y}` : `${y} and ${x}`);

  await page.goto(`/agents/${agent.id}/collisions`);
  const conflict = page.getByRole("region", { name: `Conflicting: ${pair("pricing.md", "pricing-old.md")}`, exact: true });
  await expect(conflict).toBeVisible();
  const duplicate = page.getByRole("region", { name: `Duplicate: ${pair("pricing.md", "pricing-copy.md")}`, exact: true });
  await expect(duplicate).toContainText("Similarity 100%");
  await expect(page.getByRole("region", { name: /password\.md/ })).toHaveCount(0);

  // Both sentences side by side, the differing prices marked on each side.
  const row = conflict.getByRole("row").filter({ hasText: "Starter plan" });
  await expect(row.getByRole("cell").nth(id["pricing.md"] < id["pricing-old.md"] ? 0 : 1)).toContainText(STARTER);
  await expect(row.getByRole("cell").nth(id["pricing.md"] < id["pricing-old.md"] ? 1 : 0)).toContainText(STARTER_OLD);
  await expect(row.locator("mark")).toHaveText(id["pricing.md"] < id["pricing-old.md"] ? ["$12", "$10"] : ["$10", "$12"]);
  await expect(conflict.getByRole("link", { name: "pricing-old.md" })).toHaveAttribute(
    "href",
    `/agents/${agent.id}/documents/${id["pricing-old.md"]}`,
  );

  // The kind links: only the conflicts.
  await page.getByRole("navigation", { name: "Kinds of collision" }).getByRole("link", { name: "Conflicting (2)" }).click();
  await expect(page).toHaveURL(/\?kind=conflicting$/);
  await expect(duplicate).toHaveCount(0);

  // The outdated copy removed in a new draft: still served until the draft is published.
  await conflict.getByRole("button", { name: "Remove pricing-old.md in a draft" }).click();
  const toDraft = conflict.getByRole("link", { name: /^Open draft \d+ to preview its impact and publish it$/ });
  await expect(toDraft).toBeVisible();
  expect(await servedNames(page, agent.id)).toContain("pricing-old.md");

  await toDraft.click();
  await expect(page).toHaveURL(new RegExp(`/agents/${agent.id}/drafts#draft-\\d+$`));
  const draft = page.getByRole("region", { name: 'Draft Collision: keep "pricing.md", remove "pricing-old.md"' });
  await expect(draft.getByRole("list", { name: "What it stages" })).toContainText("Removed: pricing-old.md");
  expect(await servedNames(page, agent.id)).toContain("pricing-old.md");
  await draft.getByRole("button", { name: "Publish" }).click();
  await expect(page.getByText("No drafts yet.")).toBeVisible();
  expect(await servedNames(page, agent.id)).toEqual(["password.md", "pricing-copy.md", "pricing.md"]);

  // Back on the page: no conflict left, the verbatim copy still listed.
  await page.goto(`/agents/${agent.id}/collisions`);
  await expect(page.getByRole("heading", { name: "1 collision", exact: true })).toBeVisible();
  await expect(duplicate).toBeVisible();
  await expect(page.getByRole("region", { name: /pricing-old\.md/ })).toHaveCount(0);
  await page.goto(`/agents/${agent.id}/collisions?kind=conflicting`);
  await expect(page.getByText("No conflicting collisions found; the other kinds are listed under All.")).toBeVisible();

  // The verbatim copy switched off in a draft: kept, served as it is until the draft is published, then never retrieved.
  await page.goto(`/agents/${agent.id}/collisions`);
  await duplicate.getByRole("button", { name: "Switch off pricing-copy.md in a draft" }).click();
  await duplicate.getByRole("link", { name: /^Open draft \d+ to preview its impact and publish it$/ }).click();
  const switchDraft = page.getByRole("region", { name: 'Draft Collision: keep "pricing.md", switch off "pricing-copy.md"' });
  await expect(switchDraft.getByRole("list", { name: "What it stages" })).toContainText(
    /Changed: pricing-copy\.md \(\d+ chunks?, switched off\)/,
  );
  const copy = async () =>
    (
      (await (await page.request.get(`/api/agents/${agent.id}/documents`)).json()).documents as {
        filename: string;
        enabled: number;
        draft_id: number | null;
      }[]
    ).find((d) => d.filename === "pricing-copy.md" && d.draft_id === null);
  expect(await copy()).toMatchObject({ enabled: 1 });
  await switchDraft.getByRole("button", { name: "Publish" }).click();
  await expect(page.getByText("No drafts yet.")).toBeVisible();
  expect(await copy()).toMatchObject({ enabled: 0 });
  await page.goto(`/agents/${agent.id}/collisions`);
  await expect(page.getByText("No collisions found.")).toBeVisible();
});
