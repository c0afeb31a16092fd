import type { Page } from "@playwright/test";
import { seedAppPages } from "./app-pages";
import { expect, test } from "./fixtures";

const WIDTH = 390;

/** The outermost elements that reach past the right edge of the screen, to say what widens a page. */
function overflowing(page: Page) {
  return page.evaluate((width) => {
    const out: string[] = [];
    const clipped = (el: Element) => {
      for (let a = el.parentElement; a; a = a.parentElement) if (getComputedStyle(a).overflowX !== "visible") return true;
      return false;
    };
    for (const el of document.body.querySelectorAll("*")) {
      if (clipped(el)) continue;
      const right = el.getBoundingClientRect().right;
      const parent = el.parentElement;
      if (right > width + 0.5 && parent && parent.getBoundingClientRect().right <= width + 0.5) {
        out.push(`<${el.tagName.toLowerCase()} class="${el.getAttribute("class") ?? ""}"> ends at ${Math.round(right)} px`);
      }
    }
    return out.slice(0, 5);
  }, WIDTH);
}

test("every page fits a 390 px wide phone screen", async ({ page, agent }) => {
  test.setTimeout(240_000);
  const pages = await seedAppPages(page, agent);
  await page.setViewportSize({ width: WIDTH, height: 844 });
  for (const p of pages) {
    await test.step(p.name, async () => {
      await page.goto(p.path);
      await p.ready(page);
      await page.screenshot({ path: `e2e/screenshots/narrow-${p.name}.png`, fullPage: true });
      // Wider content scrolls inside its own box (a table, a chart), never the whole page.
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      const culprits = width > WIDTH ? (await overflowing(page)).join("; ") : "";
      expect.soft(width, `${p.name} (${p.path}) is ${width} px wide: ${culprits}`).toBeLessThanOrEqual(WIDTH);
    });
  }
});
