import { afterEach, describe, expect, it } from "vitest";
import type { Metadata } from "chromadb";
import { embedder } from "../embeddings/configured";
import { chunkText } from "../core/chunking";
import { insertDocument } from "../db/documents";
import { suspectNewest } from "../db/index-check";
import { vectorStoreState } from "../vector-store/state";
import { chroma, chunkId, collectionFor } from "../vector-store/client";
import { addNotedChunks } from "../ingest/write-chunks";
import { ARTICLES, ingest, newAgent } from "../../test/helpers";
import { useExactLimits } from "./exact";
import { embedForAgent, searchAgentDocuments } from "./retrieve";
import { queryAgent } from "./index-candidates";
import { agentIdScope } from "./id-scope";

// Searches of an agent that Chroma ranks (past EXACT_MAX_CHUNKS; 0 here) send the agent's ready
// chunk ids instead of Chroma's agent filter, which costs a SQL pass over the whole collection.
// The query bodies sent to Chroma are recorded through the fetch the app's REST calls go through.
let real: typeof fetch | undefined;
afterEach(() => {
  useExactLimits({});
  if (real) vectorStoreState().fetch = real;
  real = undefined;
});

function recordQueries(): { ids: string[] | null; where: unknown }[] {
  chroma();
  real = vectorStoreState().fetch!;
  const sent: { ids: string[] | null; where: unknown }[] = [];
  vectorStoreState().fetch = (input, init) => {
    if (String(input).endsWith("/query")) {
      const body = JSON.parse(String(init?.body));
      sent.push({ ids: body.ids ?? null, where: body.where ?? null });
    }
    return real!(input, init);
  };
  return sent;
}

const chunkIdsOf = (documentId: number, chunks: number) => Array.from({ length: chunks }, (_, i) => chunkId(documentId, i));

describe("a query scoped by the agent's own chunk ids", () => {
  it("sends only the agent's ready chunks and returns what the agent filter returns of them", async () => {
    useExactLimits({ chunks: 0 });
    const e = embedder();
    const collection = await collectionFor(e);
    const agent = newAgent("scope");
    const other = newAgent("scope other");
    const docs = [
      await ingest(agent.id, "sla.md", ARTICLES.sla, 60, 10),
      await ingest(agent.id, "refunds.md", ARTICLES.refunds, 60, 10),
      await ingest(other.id, "password.md", ARTICLES.password, 60, 10),
    ];
    // A document still indexing: its vectors are in Chroma under the agent, but no search may return them.
    const text = `${ARTICLES.invoices} ${ARTICLES.sla}`;
    const chunks = chunkText(text, 60, 10, "fixed");
    const indexing = insertDocument(
      {
        agent_id: agent.id,
        filename: "indexing.md",
        type: "md",
        sha256: "scope-indexing",
        bytes: text.length,
        chunk_size: 60,
        chunk_overlap: 10,
        chunk_strategy: "fixed",
        text,
        embedding_model: e.model,
      },
      chunks,
    );
    await addNotedChunks(collection, { agentId: agent.id, documentId: indexing }, chunks, await e.embed(chunks.map((c) => c.text)));

    const sent = recordQueries();
    const results = await searchAgentDocuments(agent, "support response time for premium customers", 100);
    const ready = [...chunkIdsOf(docs[0].document_id!, docs[0].chunk_count!), ...chunkIdsOf(docs[1].document_id!, docs[1].chunk_count!)];
    expect(sent.length).toBeGreaterThan(0);
    for (const q of sent) {
      expect(q.where).toBeNull();
      expect(new Set(q.ids)).toEqual(new Set(ready));
    }
    // Every ready chunk of the agent, in the order and at the distances the agent filter gives them.
    const [query] = (await embedForAgent(agent.id, ["support response time for premium customers"])).vectors;
    const filtered = await collection.query({
      queryEmbeddings: [query],
      nResults: 100,
      where: { agent_id: agent.id },
      include: ["distances"],
    });
    const expected = filtered.ids[0].filter((id) => ready.includes(id));
    expect(results.map((r) => chunkId(r.document_id, r.chunk_index))).toEqual(expected);
    expect(results.map((r) => r.score)).toEqual(filtered.distances[0].filter((_, i) => ready.includes(filtered.ids[0][i])));
    expect(filtered.ids[0].some((id) => id.startsWith(`doc${indexing}#`))).toBe(true); // the filter alone would have returned them
  });

  it("falls back to the agent filter when Chroma lacks one of the ids, and sends the list again once the ready set changes", async () => {
    useExactLimits({ chunks: 0 });
    const e = embedder();
    const collection = await collectionFor(e);
    const agent = newAgent("scope lost");
    const sla = await ingest(agent.id, "sla.md", ARTICLES.sla, 60, 10);
    await ingest(agent.id, "refunds.md", ARTICLES.refunds, 60, 10);
    const lost = chunkId(sla.document_id!, 0);
    const kept = await collection.get({ ids: [lost], include: ["embeddings", "metadatas"] });
    await collection.delete({ ids: [lost] }); // lost behind the app's back

    const sent = recordQueries();
    const first = await searchAgentDocuments(agent, "premium support response", 5);
    expect(first.length).toBe(5);
    expect(first.map((r) => chunkId(r.document_id, r.chunk_index))).not.toContain(lost);
    expect(sent.map((q) => (q.ids ? "ids" : "where"))).toEqual(["ids", "where"]);
    // The refused list is not sent again for the same ready set.
    sent.length = 0;
    await searchAgentDocuments(agent, "refund to the original payment method", 3);
    expect(sent.map((q) => (q.ids ? "ids" : "where"))).toEqual(["where"]);

    // Repaired, and a new document ready: the list is made again and Chroma takes it.
    await collection.add({ ids: [lost], embeddings: kept.embeddings, metadatas: kept.metadatas as Metadata[] });
    await ingest(agent.id, "password.md", ARTICLES.password, 60, 10);
    sent.length = 0;
    const again = await searchAgentDocuments(agent, "premium support response", 3);
    expect(sent.map((q) => (q.ids ? "ids" : "where"))).toEqual(["ids"]);
    expect(again.map((r) => chunkId(r.document_id, r.chunk_index))).toContain(lost);
  });

  it("leaves out the documents a crash may have damaged, which are ranked from the app's copy instead", async () => {
    const e = embedder();
    const collection = await collectionFor(e);
    const agent = newAgent("scope suspect");
    await ingest(agent.id, "sla.md", ARTICLES.sla, 60, 10);
    const newest = await ingest(agent.id, "refunds.md", ARTICLES.refunds, 60, 10);
    // Chroma lost the newest document's vectors; after the restart it is suspect.
    await collection.delete({ ids: chunkIdsOf(newest.document_id!, newest.chunk_count!) });
    suspectNewest(e.model, collection.name, 1);
    const scope = agentIdScope(agent.id, e.model, [newest.document_id!]);
    expect(scope).not.toBeNull();
    expect(JSON.parse(scope!.json).some((id: string) => id.startsWith(`doc${newest.document_id}#`))).toBe(false);

    const sent = recordQueries();
    const [query] = await e.embed(["full refund within 30 days"]);
    const [hits] = await queryAgent(collection, agent.id, [query], 3);
    expect(sent.map((q) => (q.ids ? "ids" : "where"))).toEqual(["ids"]);
    expect(hits[0].document_id).toBe(newest.document_id);
  });
});
