import { describe, expect, it } from "vitest";
import { utf8 } from "../../test/fixtures/extract/builders";
import { markdownImages } from "./markdown-images";
import { extractText } from "./index";

const ALT = "The Billing tab with the Cancel subscription button";

describe("markdownImages", () => {
  it("writes an image as its alt text where it is, without its address or title", () => {
    expect(markdownImages(`Open the Billing tab ![${ALT}](img/billing.png "Billing settings") and confirm.`)).toBe(
      `Open the Billing tab [Image: ${ALT}] and confirm.`,
    );
    expect(markdownImages("[![The plans page](plans.png)](https://example.com/plans) and ![Gear icon][gear]")).toBe(
      "[Image: The plans page] and [Image: Gear icon]",
    );
  });

  it("joins the caption on the line after an image to the image's line", () => {
    expect(markdownImages(`![${ALT}](billing.png)\n*Figure 1: Cancelling a plan*\n\nNext.`)).toBe(
      `[Image: ${ALT}] [Figure: Figure 1: Cancelling a plan]\n\nNext.`,
    );
    expect(markdownImages(`![${ALT}](billing.png)\n*Figure 2:* the Billing tab`)).toBe(
      `[Image: ${ALT}] [Figure: Figure 2: the Billing tab]`,
    );
    expect(markdownImages(`![${ALT}](billing.png)\n_The Billing tab_`)).toBe(`[Image: ${ALT}] [Figure: The Billing tab]`);
    // A line of other text, or one only partly emphasized, is not a caption.
    expect(markdownImages(`![${ALT}](billing.png)\n**Note:** cancel before **renewal**`)).toBe(
      `[Image: ${ALT}]\n**Note:** cancel before **renewal**`,
    );
  });

  it("leaves nothing for an empty alt or one that only names a file, and keeps the words around it apart", () => {
    expect(
      markdownImages("Open Billing ![](a.png) and ![IMG_2043.png](img/IMG_2043.png) cancel ![cancel-button](cancel-button.png)."),
    ).toBe("Open Billing and cancel.");
    expect(markdownImages("Open Billing.\n![](a.png)\nThen cancel.")).toBe("Open Billing.\nThen cancel.");
  });

  it("leaves images in code as written", () => {
    const md = "Write `![alt](a.png)` for an image:\n\n```md\n![The Billing tab](billing.png)\n```";
    expect(markdownImages(md)).toBe(md);
  });
});

describe("extractText: markdown images", () => {
  it("indexes a Markdown file's image alt text and caption, and leaves a plain text file as written", async () => {
    const md = `# Cancelling\n\n![${ALT}](billing.png)\n*Figure 1: The Billing tab*\n\n| Plan | Price |\n|---|---|\n| Team | $20 |`;
    expect((await extractText("cancel.md", utf8(md))).text).toBe(
      `# Cancelling\n\n[Image: ${ALT}] [Figure: Figure 1: The Billing tab]\n\n| Plan | Price |\n|---|---|\n| Team | $20 |`,
    );
    expect((await extractText("cancel.txt", utf8(md))).text).toBe(md);
  });
});
