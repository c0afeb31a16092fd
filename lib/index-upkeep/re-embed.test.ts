import { afterEach, describe, expect, it } from "vitest";
import { collectionFor, ownCollections } from "../vector-store/client";
import { db } from "../db/client";
import { getDocument } from "../db/documents";
import { LocalEmbedder, type LocalModelSpec } from "../embeddings/local/embedder";
import type { Embedder } from "../embeddings/index";
import { embedder, useEmbedder } from "../embeddings/configured";
import { searchAgentDocuments } from "../retrieval/retrieve";
import { ARTICLES, ingest, newAgent } from "../../test/helpers";
import { documentsToReembed, dropEmptyCollections, reembedDocuments, type ReembedProgress } from "./re-embed";

// Lexical-only specs keep this test fast; the reindex logic only cares that the model changes.
const OLD: LocalModelSpec = { version: 1, lexicalDimension: 768, semanticWeight: 0 };
const NEW: LocalModelSpec = { version: 2, lexicalDimension: 924, semanticWeight: 0, seed: 7 };

const useModel = (e: Embedder) => {
  useEmbedder(e);
};
afterEach(() => {
  useEmbedder(undefined);
});

async function agentWithOldDocs() {
  useModel(new LocalEmbedder({ spec: OLD }));
  const agent = newAgent("reindex");
  const docs = [];
  for (const [name, text] of Object.entries(ARTICLES))
    docs.push((await ingest(agent.id, `${name}.md`, text.repeat(8), 300, 50)).document_id!);
  return { agent, docs };
}

async function vectorIds(e: Embedder, agentId: number): Promise<string[]> {
  const res = await (await collectionFor(e)).get({ where: { agent_id: agentId }, include: [] });
  return res.ids.sort();
}

describe("reindex", () => {
  it("re-embeds old-model documents in place, so search works again", async () => {
    const { agent, docs } = await agentWithOldDocs();
    const oldModel = embedder();
    const oldIds = await vectorIds(oldModel, agent.id);
    const newModel = new LocalEmbedder({ spec: NEW });
    useModel(newModel);
    await expect(searchAgentDocuments(agent.id, "refund", 3)).rejects.toMatchObject({ status: 409, message: /npm run reindex/ });

    expect(documentsToReembed(agent.id).map((d) => d.id)).toEqual(docs);
    const seen: ReembedProgress[] = [];
    const summary = await reembedDocuments({ agentId: agent.id, onProgress: (p) => seen.push(p) });

    expect(summary.failed).toEqual([]);
    expect(summary.documents).toBe(docs.length);
    expect(seen.at(-1)).toMatchObject({ documentsDone: docs.length, documents: docs.length });
    expect(seen.at(-1)!.chunksDone).toBe(summary.chunks);
    for (const id of docs) expect(getDocument(agent.id, id).embedding_model).toBe(newModel.model);
    // Same chunk ids, now in the new model's collection and gone from the old one.
    expect(await vectorIds(newModel, agent.id)).toEqual(oldIds);
    const [top] = await searchAgentDocuments(agent.id, "how long until a refund reaches me", 1);
    expect(top.filename).toBe("refunds.md");
    expect(documentsToReembed()).toEqual([]);
    expect((await reembedDocuments()).documents).toBe(0);
  });

  it("--agent leaves other agents alone, and their old vectors stay", async () => {
    const first = await agentWithOldDocs();
    const second = await agentWithOldDocs();
    const oldModel = embedder();
    useModel(new LocalEmbedder({ spec: NEW }));
    await reembedDocuments({ agentId: first.agent.id });
    expect(documentsToReembed(first.agent.id)).toEqual([]);
    expect(documentsToReembed(second.agent.id).map((d) => d.id)).toEqual(second.docs);
    expect((await vectorIds(oldModel, second.agent.id)).length).toBeGreaterThan(0);
    expect(await vectorIds(oldModel, first.agent.id)).toEqual([]);
    await reembedDocuments({ agentId: second.agent.id });
  });

  it("keeps a document on its old model when re-embedding it fails, and goes on with the rest", async () => {
    const { agent, docs } = await agentWithOldDocs();
    const oldModel = embedder();
    const good = new LocalEmbedder({ spec: NEW });
    const failing: Embedder = {
      model: good.model,
      dimension: good.dimension,
      embed: async (texts) => {
        if (texts.some((t) => t.includes("Refund policy"))) throw new Error("provider down");
        return good.embed(texts);
      },
    };
    useModel(failing);
    const summary = await reembedDocuments({ agentId: agent.id });
    expect(summary.failed.map((f) => f.document.filename)).toEqual(["refunds.md"]);
    expect(summary.failed[0].error).toMatch(/provider down/);
    expect(summary.documents).toBe(docs.length - 1);
    const refunds = docs.find((id) => getDocument(agent.id, id).filename === "refunds.md")!;
    expect(getDocument(agent.id, refunds).embedding_model).toBe(oldModel.model);
    const newIds = await vectorIds(good, agent.id);
    expect(newIds.some((id) => id.startsWith(`doc${refunds}#`))).toBe(false);
    expect((await vectorIds(oldModel, agent.id)).every((id) => id.startsWith(`doc${refunds}#`))).toBe(true);

    useModel(good); // the provider is back: a second run finishes the job
    expect((await reembedDocuments({ agentId: agent.id })).documents).toBe(1);
    expect(documentsToReembed(agent.id)).toEqual([]);
  });

  it("skips failed documents and refuses an unknown agent", async () => {
    const { agent, docs } = await agentWithOldDocs();
    db().prepare("UPDATE documents SET status = 'failed' WHERE id = ?").run(docs[0]);
    useModel(new LocalEmbedder({ spec: NEW }));
    expect(documentsToReembed(agent.id).map((d) => d.id)).toEqual(docs.slice(1));
    expect(() => documentsToReembed(987654)).toThrow(/987654/);
    db().prepare("UPDATE documents SET status = 'ready' WHERE id = ?").run(docs[0]); // it still has vectors
    await reembedDocuments({ agentId: agent.id });
  });
  // Last: this process caches collection handles, and this drops the old model's.
  it("drops old-model collections once they are empty, and only those", async () => {
    const { agent } = await agentWithOldDocs();
    const newModel = new LocalEmbedder({ spec: NEW });
    useModel(newModel);
    await reembedDocuments();
    const dropped = await dropEmptyCollections();
    expect(dropped.some((n) => n.includes("local-hash-v1-768"))).toBe(true);
    const names = (await ownCollections()).map((c) => c.name);
    expect(names.some((n) => n.includes("local-hash-v1-768"))).toBe(false);
    expect(names).toContain((await collectionFor(newModel)).name);
    expect((await searchAgentDocuments(agent.id, "invoice PDF", 1))[0].filename).toBe("invoices.md");
  });
});
