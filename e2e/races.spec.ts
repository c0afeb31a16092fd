import type { APIRequestContext } from "@playwright/test";
import { expect, test } from "./fixtures";

// Parallel HTTP requests against the running app: what a retry, two tabs or a script do.

function upload(request: APIRequestContext, agentId: number, files: Record<string, string>) {
  const form = new FormData();
  for (const [name, text] of Object.entries(files)) form.append("files", new Blob([text], { type: "text/plain" }), name);
  return request.post(`/api/agents/${agentId}/documents`, { multipart: form });
}

async function readyDocs(request: APIRequestContext, agentId: number) {
  const res = await request.get(`/api/agents/${agentId}/documents`);
  const { documents } = (await res.json()) as { documents: { id: number; filename: string; status: string }[] };
  return documents.filter((d) => d.status === "ready");
}

test("two uploads of one file at the same moment leave exactly one version, over several trials", async ({ request, agent }) => {
  for (let trial = 0; trial < 5; trial++) {
    const name = `same-${trial}.txt`;
    expect((await upload(request, agent.id, { [name]: `Old ${trial}: the ferry leaves at nine.` })).status()).toBe(201);
    const text = `New ${trial}: the ferry leaves at ten from pier ${trial}.`;
    const answers = await Promise.all([1, 2].map(() => upload(request, agent.id, { [name]: text })));
    expect(answers.map((a) => a.status())).toEqual([201, 201]);
    const outcomes = (await Promise.all(answers.map((a) => a.json()))).map((b) => b.documents[0].outcome).sort();
    expect(outcomes).toEqual(["duplicate", "replaced"]);
    const versions = (await readyDocs(request, agent.id)).filter((d) => d.filename === name);
    expect(versions).toHaveLength(1);
    const search = await request.post(`/api/agents/${agent.id}/documents/search`, { data: { query: `ferry ten pier ${trial}`, top_k: 1 } });
    expect((await search.json()).results[0]).toMatchObject({ filename: name, document_id: versions[0].id });
  }
});

test("eight uploads of the same bytes under eight names at once give one document", async ({ request, agent }) => {
  const text = "Tide tables for the harbour, updated weekly.";
  const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => upload(request, agent.id, { [`tides-${i}.txt`]: text })));
  expect(answers.every((a) => a.status() === 201)).toBe(true);
  const outcomes = (await Promise.all(answers.map((a) => a.json()))).map((b) => b.documents[0].outcome);
  expect(outcomes.filter((o) => o === "indexed")).toHaveLength(1);
  expect(outcomes.filter((o) => o === "duplicate")).toHaveLength(7);
  expect(await readyDocs(request, agent.id)).toHaveLength(1);
});

test("searches racing deletes answer 200 with the chunks that exist", async ({ request, agent }) => {
  const files = Object.fromEntries(
    Array.from({ length: 6 }, (_, i) => [`boat-${i}.txt`, `Boat ${i} rental terms and life jackets. `.repeat(20)]),
  );
  const created = (await (await upload(request, agent.id, files)).json()).documents as { document_id: number }[];
  const searches = Array.from({ length: 30 }, () =>
    request.post(`/api/agents/${agent.id}/documents/search`, { data: { query: "boat rental life jackets", top_k: 10 } }),
  );
  const deletes = created.slice(0, 5).map((d) => request.delete(`/api/agents/${agent.id}/documents/${d.document_id}`));
  const answers = await Promise.all([...searches, ...deletes]);
  expect(answers.slice(0, 30).map((a) => a.status())).toEqual(Array(30).fill(200));
  expect(answers.slice(30).map((a) => a.status())).toEqual(Array(5).fill(204));
  const after = await request.post(`/api/agents/${agent.id}/documents/search`, { data: { query: "boat rental life jackets", top_k: 10 } });
  const ids = new Set(((await after.json()).results as { document_id: number }[]).map((r) => r.document_id));
  expect([...ids]).toEqual([created[5].document_id]);
});
