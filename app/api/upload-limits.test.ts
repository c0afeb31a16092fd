import { beforeAll, describe, expect, it, vi } from "vitest";

// Small limits so the tests send a few megabytes, not hundreds; read once by env().
vi.hoisted(() => {
  process.env.MAX_REQUEST_BYTES = String(1024 * 1024);
  process.env.MAX_FILES_PER_REQUEST = "3";
});

import { call, filesForm, LOCAL_PEER } from "@/test/http";
import { ARTICLES, newAgent } from "@/test/helpers";
import * as documents from "./agents/[id]/documents/route";
import * as preview from "./agents/[id]/documents/preview/route";
import * as uploadJobs from "./agents/[id]/uploads/route";
import * as uploadJob from "./agents/[id]/uploads/[jobId]/route";

const LIMIT = 1024 * 1024;
const CHUNK = 64 * 1024;

/** A request whose body is streamed in 64 KiB pieces, counting how much the handler pulled. */
async function streamedRequest(form: FormData, { declareLength }: { declareLength: boolean }) {
  const encoded = new Response(form);
  const bytes = new Uint8Array(await encoded.arrayBuffer());
  const pulled = { bytes: 0 };
  let offset = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      const piece = bytes.subarray(offset, offset + CHUNK);
      offset += piece.length;
      pulled.bytes += piece.length;
      controller.enqueue(piece);
    },
  });
  const headers: Record<string, string> = { ...LOCAL_PEER, "content-type": encoded.headers.get("content-type")! };
  if (declareLength) headers["content-length"] = String(bytes.length);
  const req = new Request("http://localhost/test", { method: "POST", headers, body, duplex: "half" } as RequestInit);
  return { req, pulled };
}

async function answer(res: Response) {
  return { status: res.status, body: await res.json() };
}

let id: string;
const params = () => Promise.resolve({ id });
beforeAll(() => {
  id = String(newAgent("limits").id);
});

describe("request size and file count limits", () => {
  it("refuses a declared Content-Length above MAX_REQUEST_BYTES before reading the body", async () => {
    const { req, pulled } = await streamedRequest(filesForm([["big.txt", "a".repeat(3 * LIMIT)]]), { declareLength: true });
    const res = await answer(await documents.POST(req, { params: params() }));
    expect(res).toMatchObject({ status: 413, body: { error: { code: "request_too_large" } } });
    expect(res.body.error.message).toMatch(/MAX_REQUEST_BYTES/);
    expect(res.body.error.message).toMatch(/1 MB/);
    expect(pulled.bytes).toBeLessThanOrEqual(2 * CHUNK);
  });

  it("stops reading a chunked body once it passes the limit", async () => {
    const { req, pulled } = await streamedRequest(filesForm([["big.txt", "a".repeat(3 * LIMIT)]]), { declareLength: false });
    const res = await answer(await documents.POST(req, { params: params() }));
    expect(res).toMatchObject({ status: 413, body: { error: { code: "request_too_large" } } });
    expect(pulled.bytes).toBeLessThanOrEqual(LIMIT + 2 * CHUNK);
    expect((await call(documents.GET, { method: "GET", params: { id } })).body.documents).toEqual([]);
  });

  it("accepts a chunked body under the limit", async () => {
    const { req } = await streamedRequest(filesForm([["sla.md", ARTICLES.sla]]), { declareLength: false });
    const res = await answer(await documents.POST(req, { params: params() }));
    expect(res.status).toBe(201);
    expect(res.body.documents[0]).toMatchObject({ filename: "sla.md", status: "ready" });
  });

  it("refuses more files than MAX_FILES_PER_REQUEST, on the API and on the upload route the page sends to", async () => {
    const four = () => filesForm([1, 2, 3, 4].map((n) => [`many-${n}.txt`, `Article number ${n}.`] as [string, string]));
    const res = await call(documents.POST, { body: four(), params: { id } });
    expect(res).toMatchObject({ status: 413, body: { error: { code: "too_many_files" } } });
    expect(res.body.error.message).toMatch(/4 files.*at most 3.*MAX_FILES_PER_REQUEST/);

    const job = await call(uploadJobs.POST, { body: four(), params: { id } });
    expect(job).toMatchObject({ status: 413, body: { error: { code: "too_many_files" } } });
    expect(job.body.error.message).toMatch(/MAX_FILES_PER_REQUEST/);

    const list = await call(documents.GET, { method: "GET", params: { id } });
    expect(list.body.documents.map((d: { filename: string }) => d.filename)).not.toContain("many-1.txt");
  });

  it("preview: 400 invalid_multipart for a malformed body, 413 past the limit", async () => {
    const broken = await call(preview.POST, {
      body: "this is not multipart",
      headers: { "content-type": "multipart/form-data; boundary=nothing-here" },
      params: { id },
    });
    expect(broken).toMatchObject({ status: 400, body: { error: { code: "invalid_multipart" } } });
    const empty = await call(preview.POST, { params: { id } });
    expect(empty).toMatchObject({ status: 400, body: { error: { code: "invalid_multipart" } } });

    const one = new FormData();
    one.set("file", new Blob(["a".repeat(2 * LIMIT)]), "big.txt");
    const { req } = await streamedRequest(one, { declareLength: false });
    expect(await answer(await preview.POST(req, { params: params() }))).toMatchObject({
      status: 413,
      body: { error: { code: "request_too_large" } },
    });
  });
});

describe("uploaded filenames", () => {
  it("are stored without bidi, control or zero-width characters and at most 255 bytes", async () => {
    const long = `${"x".repeat(5000)}.md`;
    const res = await call(documents.POST, {
      body: filesForm([
        ["invoice\u202etxt.exe.md", ARTICLES.refunds],
        [long, ARTICLES.password],
        ["..\\quarterly\t report\r\n\u200bdraft.md", ARTICLES.invoices],
      ]),
      params: { id },
    });
    expect(res.status).toBe(201);
    const names = res.body.documents.map((d: { filename: string }) => d.filename);
    expect(names[0]).toBe("invoicetxt.exe.md");
    expect(new TextEncoder().encode(names[1]).byteLength).toBe(255);
    expect(names[1]).toMatch(/^x+\.md$/);
    expect(names[2]).toBe("quarterly report draft.md");

    const list = await call(documents.GET, { method: "GET", params: { id } });
    const stored = list.body.documents.map((d: { filename: string }) => d.filename);
    expect(stored).toEqual(expect.arrayContaining(names));
  });

  it("are cleaned in the preview too", async () => {
    const one = new FormData();
    one.set("file", new Blob(["# Hi"]), "notes.md\u200b");
    // The extension decides the type: with the zero-width space it would be unsupported.
    const res = await call(preview.POST, { body: one, params: { id } });
    expect(res).toMatchObject({ status: 200, body: { type: "md", text: "# Hi" } });
  });
});

describe("the upload routes' own access checks (the proxy leaves them out)", () => {
  it("refuse a cross-origin upload and a foreign Host before reading the body", async () => {
    const agent = newAgent("gate");
    const big = "words ".repeat(150_000); // 900 KB, under the 1 MB limit of this file
    const { req: crossOrigin, pulled } = await streamedRequest(filesForm([["a.txt", big]]), { declareLength: true });
    crossOrigin.headers.set("origin", "http://evil.example");
    const refused = await answer(await documents.POST(crossOrigin, { params: Promise.resolve({ id: String(agent.id) }) }));
    expect(refused).toMatchObject({ status: 403, body: { error: { code: "forbidden_origin" } } });
    expect(pulled.bytes).toBeLessThanOrEqual(CHUNK); // at most what the stream buffers on its own

    // The upload job routes too: starting a job, and adding files to one.
    for (const [post, extra] of [
      [uploadJobs.POST, {}],
      [uploadJob.POST, { jobId: "any" }],
    ] as const) {
      const { req, pulled: read } = await streamedRequest(filesForm([["a.txt", big]]), { declareLength: true });
      req.headers.set("origin", "http://evil.example");
      const res = await answer(await post(req, { params: Promise.resolve({ id: String(agent.id), ...extra }) } as never));
      expect(res).toMatchObject({ status: 403, body: { error: { code: "forbidden_origin" } } });
      expect(read.bytes).toBeLessThanOrEqual(CHUNK);
    }

    const rebound = new Request("http://evil.example/api/agents/1/documents", { method: "GET" });
    const res = await preview.POST(rebound, { params: Promise.resolve({ id: String(agent.id) }) });
    expect(res.status).toBe(403);
    expect((await res.json()).error.code).toBe("forbidden_host");
  });
});
