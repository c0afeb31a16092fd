import { describe, expect, it } from "vitest";
import { documentChunks } from "../db/chunks";
import { getDocument } from "../db/documents";
import { searchAgentDocuments } from "../retrieval/retrieve";
import { ARTICLES, enc, ingest, newAgent } from "../../test/helpers";
import { ingestFile } from "./pipeline";

const ALT = "Screenshot: the Billing tab with the Cancel subscription button";

/** A help article that names the button only in its screenshot's alt text. */
const ARTICLE = `<!doctype html><html><body><nav><a href="/">Help centre</a></nav><main>
  <h1>Ending your plan</h1>
  <p>Plans renew every month on the day you first paid, and every seat on the plan is billed at each renewal.</p>
  <p>To end the plan, sign in as an owner and open Settings, then Billing.
    <img src="/help/img/billing-tab.png" alt="${ALT}" width="640" height="360">
    Confirm in the dialog; an email confirms the change within a few minutes.</p>
  <p>The plan stays active until the end of the period already paid for. Your data is kept for 30 days after that.</p>
</main></body></html>`;

describe("an image's alt text in an uploaded HTML article", () => {
  it("is indexed in its paragraph's chunk, so a search for the words of the alt text finds the article", async () => {
    const agent = newAgent("alt text");
    const res = await ingestFile(
      agent.id,
      { filename: "ending-your-plan.html", bytes: enc(ARTICLE) },
      { chunkSize: 250, chunkOverlap: 40 },
    );
    expect(res).toMatchObject({ status: "ready" });
    for (const [name, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${name}.md`, text, 250, 40);
    await ingest(
      agent.id,
      "seats.md",
      "Adding seats. Owners add seats to a subscription from the Members page; each seat is billed from the day it is added.",
      250,
      40,
    );

    const doc = getDocument(agent.id, res.document_id!);
    expect(documentChunks(doc.id).length).toBeGreaterThan(1);
    const [first] = await searchAgentDocuments(agent.id, "cancel subscription button", 3);
    expect(first).toMatchObject({ document_id: doc.id });
    expect(first.chunk_text).toContain(`[Image: ${ALT}]`);
    expect(first.chunk_text).toContain("open Settings, then Billing.");
    expect(first.chunk_text).toContain("Confirm in the dialog");
  });
});
