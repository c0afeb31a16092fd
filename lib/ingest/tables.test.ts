import { afterEach, describe, expect, it } from "vitest";
import { embeddedText, indexedText } from "../core/chunking";
import { chunkKey, documentChunks, storedChunks } from "../db/chunks";
import { chunkVectorsOf } from "../db/chunk-vectors";
import { getDocument, listDocuments } from "../db/documents";
import { embedder, useEmbedder } from "../embeddings/configured";
import { LocalEmbedder } from "../embeddings/local/embedder";
import { reembedDocuments } from "../index-upkeep/re-embed";
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

describe("what a table's chunks are embedded by", () => {
  afterEach(() => useEmbedder(undefined));

  const NOVA_ROW = /^\| Nova \| \$\d+ \|/m;
  const novaChunk = (documentId: number) => documentChunks(documentId).find((c) => NOVA_ROW.test(c.text))!;
  /** The chunk's vector as stored (the exact ranking's copy, written with Chroma's from the same vectors). */
  const storedVector = (c: { document_id: number; chunk_index: number }) =>
    chunkVectorsOf([c], embedder().model).get(chunkKey(c.document_id, c.chunk_index));
  const vectorOf = async (text: string) => Float32Array.from((await embedder().embed([text]))[0]);
  const upload = (agentId: number) =>
    ingestFile(agentId, { filename: "prices.html", bytes: enc(priceList()) }, { chunkSize: 300, chunkOverlap: 60 });

  it("embeds the rows as column-value pairs while the keyword index keeps the pipe rows, and ranks the row's chunk first by its vector", async () => {
    const agent = newAgent("tables embedded");
    const res = await upload(agent.id);
    await ingestFile(agent.id, { filename: "moving.md", bytes: enc(GUIDE) }, { chunkSize: 300, chunkOverlap: 60 });
    const nova = novaChunk(res.document_id!);
    expect(nova.context).toBe(HEADER);
    expect(embeddedText(nova).split("\n")).toContain("Plan: Nova; Monthly price: $168; Seats: 5 users; Storage: 400 GB");
    expect(embeddedText(nova)).not.toContain("|");

    const stored = storedVector(nova);
    expect(stored).toEqual(await vectorOf(embeddedText(nova)));
    expect(stored).not.toEqual(await vectorOf(indexedText(nova)));

    const [first] = (await retrieve(agent.id, ["Monthly price of the Nova plan"], { topK: 3, mode: "vector" }))[0];
    expect(first).toMatchObject({ document_id: res.document_id, context: HEADER });
    expect(first.chunk_text).toMatch(NOVA_ROW);
    const [keyword] = (await retrieve(agent.id, ["Monthly price of the Nova plan"], { topK: 3, mode: "keyword" }))[0];
    expect(keyword.chunk_text).toMatch(NOVA_ROW);
  });

  it("gives a chunk the same vector when it is embedded again after a model change, and embeds its questions after the pairs", async () => {
    const first = await upload(newAgent("tables ingest").id);
    const ingested = storedVector(novaChunk(first.document_id!));
    expect(ingested).toBeDefined();

    // Uploaded under another model, then re-embedded with the configured one.
    const agent = newAgent("tables re-embed");
    useEmbedder(new LocalEmbedder({ spec: { version: 1, lexicalDimension: 768, semanticWeight: 0 } }));
    const res = await upload(agent.id);
    useEmbedder(undefined);
    expect((await reembedDocuments({ agentId: agent.id })).failed).toEqual([]);
    expect(storedVector(novaChunk(res.document_id!))).toEqual(ingested);

    // A question attached by an editor is embedded after the chunk's pairs.
    const target = documentCuration(getDocument(agent.id, res.document_id!)).chunks.find((c) => NOVA_ROW.test(c.text))!;
    const asked = await changeChunk(agent.id, target.id, { questions: ["What does Nova cost?"] }, null);
    const curated = novaChunk(asked.document_id);
    expect(curated.questions).toEqual(["What does Nova cost?"]);
    expect(embeddedText(curated)).toMatch(/^Plan: .*\n\nWhat does Nova cost\?$/s);
    expect(storedVector(curated)).toEqual(await vectorOf(embeddedText(curated)));
  });
});
