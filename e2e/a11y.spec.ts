import AxeBuilder from "@axe-core/playwright";
import { seedAppPages } from "./app-pages";
import { expect, test } from "./fixtures";

// Serious and critical problems keep a keyboard or screen-reader user from using the page.
const BLOCKING = new Set(["serious", "critical"]);

test("no page of the app has a serious or critical accessibility violation", async ({ page, agent }) => {
  test.setTimeout(240_000);
  const pages = await seedAppPages(page, agent);
  const found: string[] = [];
  for (const p of pages) {
    await test.step(p.name, async () => {
      await page.goto(p.path);
      await p.ready(page);
      const { violations } = await new AxeBuilder({ page }).analyze();
      for (const v of violations.filter((v) => BLOCKING.has(v.impact ?? ""))) {
        const targets = v.nodes.map((n) => n.target.join(" ")).join(" | ");
        found.push(`${p.name} (${p.path}): ${v.id} [${v.impact}] ${v.help} — ${targets}`);
      }
      await page.screenshot({ path: `e2e/screenshots/wide-${p.name}.png`, fullPage: true });
    });
  }
  expect(found, found.join("\n")).toEqual([]);
});

test("the hidden file input shows its focus ring on the Choose files button", async ({ page, agent }) => {
  await page.goto(`/agents/${agent.id}`);
  const files = page.getByLabel("Files");
  const button = page.locator("label").filter({ has: files });
  await expect(button).toHaveCSS("outline-style", "none");
  // Reached with the keyboard, as a keyboard user would.
  for (let i = 0; i < 30 && !(await files.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press("Tab");
  await expect(files).toBeFocused();
  await expect(button).toHaveCSS("outline-style", "solid");
  await expect(button).toHaveCSS("outline-width", "2px");
});
