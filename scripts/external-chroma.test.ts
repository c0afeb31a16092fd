import { beforeAll, describe, expect, inject, it } from "vitest";
import { env } from "@/lib/env.mjs";
import { ownCollections } from "@/lib/vector-store/client";
import { searchAgentDocuments } from "@/lib/retrieval/retrieve";
import { ARTICLES, ingest, newAgent } from "@/test/helpers";

// Where the app's Chroma client writes, checked over raw HTTP, not through the app's client.
// `npm run test:external-chroma` runs this file with KB_TEST_CHROMA_TENANT/_DATABASE set
// (test/global-setup.ts creates them, test/setup.ts sets CHROMA_TENANT/CHROMA_DATABASE);
// in a plain `vitest run` the app uses Chroma's defaults.
const url = inject("chromaUrl");
const tenant = inject("chromaTenant");
const database = inject("chromaDatabase");
const DEFAULTS = { tenant: "default_tenant", database: "default_database" };
const expected = tenant && database ? { tenant, database } : DEFAULTS;
// Every collection the app creates in this test file starts with it (see collectionName()).
const prefix = `${process.env.CHROMA_COLLECTION_PREFIX}-`;

const dbPath = (t: string, d: string) => `/api/v2/tenants/${encodeURIComponent(t)}/databases/${encodeURIComponent(d)}`;

async function chromaGet<T>(path: string): Promise<T> {
  const res = await fetch(`${url}${path}`);
  if (!res.ok) throw new Error(`GET ${path}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** This file's collections in a tenant/database, as Chroma lists them. */
async function ownCollectionsIn(t: string, d: string) {
  const all: { id: string; name: string }[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await chromaGet<{ id: string; name: string }[]>(`${dbPath(t, d)}/collections?limit=100&offset=${offset}`);
    all.push(...page);
    if (page.length < 100) break;
  }
  return all.filter((c) => c.name.startsWith(prefix));
}

let agentId: number;
let documentId: number;
let chunkCount: number;
beforeAll(async () => {
  agentId = newAgent("tenant check").id;
  const res = await ingest(agentId, "sla.md", `${ARTICLES.sla}\n\n${"Filler about office plants. ".repeat(30)}`, 200, 0);
  expect(res).toMatchObject({ status: "ready" });
  documentId = res.document_id!;
  chunkCount = res.chunk_count!;
  expect(chunkCount).toBeGreaterThan(1);
});

describe(`the app's Chroma client writes into ${expected.tenant}/${expected.database}`, () => {
  it("sees CHROMA_TENANT/CHROMA_DATABASE as the test setup set them", () => {
    expect(env().CHROMA_URL).toBe(url);
    expect(env().CHROMA_TENANT).toBe(tenant ?? undefined);
    expect(env().CHROMA_DATABASE).toBe(database ?? undefined);
  });

  it("indexes a document into a collection of that tenant and database, and searches it there", async () => {
    // The tenant and database exist (Chroma lists collections of unknown ones as empty).
    await chromaGet(`/api/v2/tenants/${encodeURIComponent(expected.tenant)}`);
    await chromaGet(dbPath(expected.tenant, expected.database));

    const listed = await ownCollectionsIn(expected.tenant, expected.database);
    expect(listed).toHaveLength(1);
    expect(await chromaGet<number>(`${dbPath(expected.tenant, expected.database)}/collections/${listed[0].id}/count`)).toBe(chunkCount);
    // The app lists the same collections through its own client.
    expect((await ownCollections()).map((c) => c.name)).toEqual(listed.map((c) => c.name));

    const results = await searchAgentDocuments(agentId, "support SLA first response", 3);
    expect(results[0]).toMatchObject({ document_id: documentId, filename: "sla.md", chunk_index: 0 });
  });

  it.skipIf(!tenant)(
    "leaves Chroma's default_tenant/default_database without the app's collections (only with KB_TEST_CHROMA_TENANT, as in npm run test:external-chroma)",
    async () => {
      expect(expected).not.toEqual(DEFAULTS);
      expect(await ownCollectionsIn(DEFAULTS.tenant, DEFAULTS.database)).toEqual([]);
    },
  );
});
