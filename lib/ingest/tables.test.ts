import { describe, expect, it } from "vitest";
import { documentChunks, storedChunks } from "../db/chunks";
import { getDocument, listDocuments } from "../db/documents";
import { retrieve, searchAgentDocuments } from "../retrieval/retrieve";
import { exportAgentLines, linesStream } from "../transfer/export";
import { importAgent } from "../transfer/import";
import { enc, newAgent } from "../../test/helpers";
import { changeChunk, documentCuration } from "./curate";
import { ingestFile } from "./pipeline";

const PLANS = [
  "Aurora", "Basalt", "Cobalt", "Dune", "Ember", "Fjord", "Glacier", "Harbor", "Indigo", "Juniper",
  "Kestrel", "Lagoon", "Meadow", "Nimbus", "Obsidian", "Prairie", "Quartz", "Redwood", "Sierra", "Tundra",
  "Umber", "Vertex", "Willow", "Xenon", "Yarrow", "Zephyr", "Alder", "Birch", "Cedar", "Delta",
  "Echo", "Falcon", "Garnet", "Heron", "Iris", "Jasper", "Krypton", "Linden", "Maple", "Nova",
]; // prettier-ignore
const HEADER = "| Plan | Monthly price | Seats | Storage |";

/** An HTML price list: a few paragraphs around a table of 40 plans. */
function priceList(): string {
  const rows = PLANS.map(
    (p, i) => `<tr><td>${p}</td><td>$${(i + 3) * 4}</td><td>${(i % 9) + 2} users</td><td>${(i + 1) * 10} GB</td></tr>`,
  );
  return `<!doctype html><html><body><main>
    <h1>Price list</h1>
    <p>All plans are billed every month and can be cancelled at any time from the billing settings.</p>
    <table><thead><tr><th>Plan</th><th>Monthly price</th><th>Seats</th><th>Storage</th></tr></thead>
    <tbody>${rows.join("\n")}</tbody></table>
    <p>Prices are shown without VAT, which is added at checkout for customers in the EU.</p>
  </main></body></html>`;
}

/** Another article that names the same plans in prose, without their prices. */
const GUIDE = `# Moving between plans\n\n${PLANS.map((p) => `The ${p} plan can be moved to another plan from the ${p} plan settings page; moving keeps your ${p} plan data.`).join("\n\n")}`;

describe("a table uploaded as HTML", () => {
  it("is found by a row's name and a column's name, the chunk holding the row first, with its header as context", async () => {
    const agent = newAgent("tables");
    const res = await ingestFile(agent.id, { filename: "prices.html", bytes: enc(priceList()) }, { chunkSize: 300, chunkOverlap: 60 });
    expect(res).toMatchObject({ status: "ready" });
    await ingestFile(agent.id, { filename: "moving.md", bytes: enc(GUIDE) }, { chunkSize: 300, chunkOverlap: 60 });
    const doc = getDocument(agent.id, res.document_id!);
    expect(doc.text).toContain(`${HEADER}\n| Aurora | $12 | 2 users | 10 GB |`);

    // Every chunk of rows without the header carries it, as stored and as read back for indexing.
    const rows = documentChunks(doc.id);
    const later = rows.filter((c) => c.text.startsWith("| ") && !c.text.includes(HEADER));
    expect(later.length).toBeGreaterThan(3);
    for (const c of later) expect(c.context).toBe(HEADER);
    expect(storedChunks(doc.id).filter((c) => c.context)).toHaveLength(later.length);
    expect(documentCuration(doc).chunks.filter((c) => c.context === HEADER)).toHaveLength(later.length);

    for (const plan of ["Quartz", "Garnet", "Nova"]) {
      const row = new RegExp(`^\\| ${plan} \\| \\$\\d+ \\|`, "m");
      const holder = later.find((c) => row.test(c.text));
      expect(holder, plan).toBeDefined();
      const query = `monthly price of the ${plan} plan`;
      const [first] = await searchAgentDocuments(agent.id, query, 3);
      expect(first).toMatchObject({ document_id: doc.id, context: HEADER });
      expect(first.chunk_text).toMatch(row);
      // The keyword index holds the header with the rows too.
      const [keyword] = (await retrieve(agent.id, [query], { topK: 3, mode: "keyword" }))[0];
      expect(keyword).toMatchObject({ document_id: doc.id, context: HEADER });
      expect(keyword.chunk_text).toMatch(row);
    }
  });

  it("keeps its context through an agent's export and import", async () => {
    const agent = newAgent("tables export");
    const res = await ingestFile(agent.id, { filename: "prices.html", bytes: enc(priceList()) }, { chunkSize: 300, chunkOverlap: 60 });
    const imported = await importAgent(linesStream(exportAgentLines(agent.id)), { name: `${agent.name} copy` });
    const [copy] = listDocuments(imported.agent.id);
    expect(storedChunks(copy.id)).toEqual(storedChunks(res.document_id!));
    expect(storedChunks(copy.id).filter((c) => c.context === HEADER).length).toBeGreaterThan(3);
  });

  it("keeps a chunk's context when an editor attaches a question or switches it off", async () => {
    const agent = newAgent("tables curation");
    const res = await ingestFile(agent.id, { filename: "prices.html", bytes: enc(priceList()) }, { chunkSize: 300, chunkOverlap: 60 });
    const target = documentCuration(getDocument(agent.id, res.document_id!)).chunks.find((c) => c.context)!;
    const asked = await changeChunk(agent.id, target.id, { questions: ["Which plan has 30 GB?"] }, null);
    expect(asked.chunks.find((c) => c.id === target.id)).toMatchObject({ context: HEADER, questions: ["Which plan has 30 GB?"] });
    const off = await changeChunk(agent.id, target.id, { enabled: false }, null);
    expect(off.chunks.find((c) => c.id === target.id)).toMatchObject({ context: HEADER, enabled: false });
    const on = await changeChunk(agent.id, target.id, { enabled: true }, null);
    expect(documentChunks(on.document_id).find((c) => c.text === target.text)?.context).toBe(HEADER);
  });
});
