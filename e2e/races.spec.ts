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

test("chunk changes racing each other on one document all settle on one version, over several trials", async ({ request, agent }) => {
  const paragraphs = (trial: number) =>
    [
      `Ferry ${trial} timetable. The first ferry leaves the harbour at seven every weekday morning.`,
      `Ferry ${trial} tickets. Buy tickets at the kiosk on the pier or from the conductor on board.`,
      `Ferry ${trial} footer. All rights reserved by the harbour company. Follow us for news.`,
    ].join("\n\n");
  for (let trial = 0; trial < 3; trial++) {
    const name = `ferry-${trial}.md`;
    const form = new FormData();
    form.append("files", new Blob([paragraphs(trial)], { type: "text/plain" }), name);
    form.append("chunk_size", "100");
    form.append("chunk_overlap", "0");
    const created = (await (await request.post(`/api/agents/${agent.id}/documents`, { multipart: form })).json()).documents[0];
    const doc = await (await request.get(`/api/agents/${agent.id}/documents/${created.document_id}`)).json();
    const [timetable, tickets, footer] = doc.chunks as { id: number }[];
    const answers = await Promise.all([
      request.patch(`/api/agents/${agent.id}/chunks/${timetable.id}`, { data: { questions: [`when does ferry ${trial} sail`] } }),
      request.patch(`/api/agents/${agent.id}/chunks/${tickets.id}`, { data: { text: `Ferry ${trial} tickets are sold on board only.` } }),
      request.patch(`/api/agents/${agent.id}/chunks/${footer.id}`, { data: { enabled: false } }),
      request.post(`/api/agents/${agent.id}/documents/${created.document_id}/chunks`, {
        data: { text: `Ferry ${trial} pets travel free.` },
      }),
    ]);
    // Each change applies to the version that holds its chunk when its turn comes; a change naming
    // a version that another replaced meanwhile is refused with 409 and changes nothing.
    const statuses = answers.map((a) => a.status());
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect([201, 409]).toContain(statuses[3]);
    const versions = (await readyDocs(request, agent.id)).filter((d) => d.filename === name);
    expect(versions).toHaveLength(1);
    const final = await (await request.get(`/api/agents/${agent.id}/documents/${versions[0].id}`)).json();
    const byId = new Map((final.chunks as { id: number; enabled: boolean; edited: boolean; questions: string[] }[]).map((c) => [c.id, c]));
    expect(byId.get(timetable.id)?.questions).toEqual([`when does ferry ${trial} sail`]);
    expect(byId.get(tickets.id)?.edited).toBe(true);
    expect(byId.get(footer.id)?.enabled).toBe(false);
    expect(final.chunks.some((c: { text: string }) => c.text.includes("pets travel free"))).toBe(statuses[3] === 201);
    const search = await request.post(`/api/agents/${agent.id}/documents/search`, {
      data: { query: `ferry ${trial} footer rights`, top_k: 10 },
    });
    expect(
      (await search.json()).results.every(
        (r: { document_id: number; chunk_text: string }) => r.document_id !== versions[0].id || !r.chunk_text.includes("footer"),
      ),
    ).toBe(true);
  }
});

test("two publishes and a discard of one draft at once: exactly one applies, whole, over several trials", async ({ request, agent }) => {
  for (let trial = 0; trial < 3; trial++) {
    const name = `tides-${trial}.md`;
    const old = `Tide ${trial} tables are printed weekly at the harbour office.`;
    const created = (await (await upload(request, agent.id, { [name]: old })).json()).documents[0];
    const doc = await (await request.get(`/api/agents/${agent.id}/documents/${created.document_id}`)).json();
    const draft = await (await request.post(`/api/agents/${agent.id}/drafts`, { data: { name: `tides ${trial}` } })).json();
    const edited = `Tide ${trial} tables are updated daily at noon online.`;
    const staged = await request.patch(`/api/agents/${agent.id}/chunks/${doc.chunks[0].id}?draft=${draft.id}`, { data: { text: edited } });
    expect(staged.status()).toBe(200);
    const answers = await Promise.all([
      request.post(`/api/agents/${agent.id}/drafts/${draft.id}/publish`),
      request.post(`/api/agents/${agent.id}/drafts/${draft.id}/publish`),
      request.delete(`/api/agents/${agent.id}/drafts/${draft.id}`),
    ]);
    const statuses = answers.map((a) => a.status());
    // One of the three applies; the others find the draft gone.
    expect(statuses.filter((s) => s === 200 || s === 204)).toHaveLength(1);
    expect(statuses.filter((s) => s === 404)).toHaveLength(2);
    const published = statuses[0] === 200 || statuses[1] === 200;
    expect((await (await request.get(`/api/agents/${agent.id}/drafts`)).json()).drafts).toEqual([]);
    const versions = (await readyDocs(request, agent.id)).filter((d) => d.filename === name);
    expect(versions).toHaveLength(1);
    const served = await (await request.get(`/api/agents/${agent.id}/documents/${versions[0].id}`)).json();
    expect(served.chunks.map((c: { text: string }) => c.text)).toEqual([published ? edited : old]);
    const search = await request.post(`/api/agents/${agent.id}/documents/search`, { data: { query: `tide ${trial} tables`, top_k: 1 } });
    expect((await search.json()).results[0]).toMatchObject({ document_id: versions[0].id, chunk_text: published ? edited : old });
  }
});
