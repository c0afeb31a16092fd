import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it, vi } from "vitest";

// A small text limit, so a document over MAX_TEXT_CHARS needs only a few kilobytes. Read once by env().
vi.hoisted(() => {
  process.env.MAX_TEXT_CHARS = "4000";
});

import { LOCAL_PEER } from "@/test/http";
import { ARTICLES, ingest, newAgent, undeletedCleanups } from "@/test/helpers";
import { findAgentByName, listAgents } from "@/lib/db/agents";
import { listDocuments } from "@/lib/db/documents";
import { createPair, listPairs } from "@/lib/db/pairs";
import { db } from "@/lib/db/client";
import { embedder } from "@/lib/embeddings/configured";
import { collectionFor } from "@/lib/vector-store/client";
import * as exportRoute from "../[id]/export/route";
import * as importRoute from "./route";

type Line = Record<string, unknown> & { type: string };
type DocLine = Line & {
  document: { filename: string; text: string; chunk_size: number };
  chunks: { index: number; start: number; end: number }[];
};

const LONG = Array.from(
  { length: 12 },
  (_, i) => `Paragraph ${i}. Orders ship from the warehouse nearest to the customer within two business days.`,
).join("\n\n");

let lines: Line[];

const serialise = (all: Line[]) => all.map((l) => `${JSON.stringify(l)}\n`).join("");

/** The file from these lines, with its end line's counts and checksum made right again, as a careful forger would. */
function sealed(all: Line[]): string {
  const body = serialise(all.filter((l) => l.type !== "end"));
  const docs = all.filter((l) => l.type === "document") as DocLine[];
  const counts = {
    documents: docs.length,
    chunks: docs.reduce((n, d) => n + d.chunks.length, 0),
    pairs: all.filter((l) => l.type === "pair").length,
    runs: all.filter((l) => l.type === "run").length,
  };
  return `${body}${JSON.stringify({ type: "end", counts, sha256: createHash("sha256").update(body).digest("hex") })}\n`;
}

/** The exported lines with one document's line (and its vectors lines) replaced. */
function withDocument(filename: string, edit: (doc: DocLine) => Line[]): Line[] {
  const out: Line[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.type !== "document" || (l as DocLine).document.filename !== filename) {
      out.push(structuredClone(l));
      continue;
    }
    while (lines[i + 1]?.type === "vectors") i++;
    out.push(...edit(structuredClone(l) as DocLine));
  }
  return out;
}

/** Vectors lines for `count` chunks, every one the first vector of the exported file. */
function vectorLines(count: number): Line[] {
  const first = lines.find((l) => l.type === "vectors") as Line & { dimension: number; data: string };
  const one = Buffer.from(first.data, "base64").subarray(0, first.dimension * 4);
  const out: Line[] = [];
  for (let at = 0; at < count; at += 64) {
    const n = Math.min(64, count - at);
    out.push({
      type: "vectors",
      first_chunk: at,
      count: n,
      dimension: first.dimension,
      data: Buffer.concat(Array(n).fill(one)).toString("base64"),
    });
  }
  return out;
}

function request(body: BodyInit | ReadableStream<Uint8Array>, name: string) {
  return new Request(`http://localhost/test?name=${encodeURIComponent(name)}`, {
    method: "POST",
    headers: { ...LOCAL_PEER, "content-type": "application/x-ndjson" },
    body,
    duplex: "half",
  } as RequestInit);
}

async function importFile(text: string, name: string) {
  const res = await importRoute.POST(request(text, name), { params: Promise.resolve({}) });
  return { status: res.status, body: await res.json() };
}

const agentSeq = () => (db().prepare("SELECT seq FROM sqlite_sequence WHERE name = 'agents'").get() as { seq: number }).seq;
const chromaCount = async (agentId: number) =>
  (await (await collectionFor(embedder())).get({ where: { agent_id: agentId }, include: [] })).ids.length;

/** Imports a file that must be refused with 422, and checks it left nothing: no agent, document, pair or vector. */
async function refused(text: string, name: string) {
  const seq = agentSeq();
  const agents = listAgents().length;
  const res = await importFile(text, name);
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body.error.code).toBe("invalid_request");
  expect(findAgentByName(name)).toBeUndefined();
  expect(listAgents().length).toBe(agents);
  for (let id = seq + 1; id <= agentSeq(); id++) {
    expect(listDocuments(id)).toEqual([]);
    expect(listPairs(id)).toEqual([]);
    expect(await chromaCount(id)).toBe(0);
    expect(undeletedCleanups(id)).toEqual([]);
  }
  return res.body.error.message as string;
}

beforeAll(async () => {
  const source = newAgent("Import checks source");
  await ingest(source.id, "sla.md", ARTICLES.sla);
  await ingest(source.id, "long.md", LONG, 300, 40);
  createPair(source.id, { query: "premium response time", expected_filename: "sla.md", source: "manual", note: "checked" });
  const res = await exportRoute.GET(new Request("http://localhost/test", { headers: LOCAL_PEER }), {
    params: Promise.resolve({ id: String(source.id) }),
  });
  expect(res.status).toBe(200);
  lines = (await res.text())
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(
    (lines.find((l) => l.type === "document" && (l as DocLine).document.filename === "long.md") as DocLine).chunks.length,
  ).toBeGreaterThan(2);
});

describe("POST /api/agents/import checks every line as the upload and pairs APIs do", () => {
  it("accepts the file as exported, re-sealed by the tests' own sealing", async () => {
    expect((await importFile(sealed(lines), "Import checks copy")).status).toBe(201);
  });

  it("refuses a chunk wider than its chunk size, or one outside the text", async () => {
    const wide = withDocument("long.md", (d) => {
      d.chunks[0] = { index: 0, start: 0, end: d.document.text.length };
      return [d, ...vectorLines(d.chunks.length)];
    });
    const docLine = wide.findIndex((l) => l.type === "document" && (l as DocLine).document.filename === "long.md") + 1;
    expect(await refused(sealed(wide), "wide chunk")).toBe(
      `Line ${docLine} of the agent file: the chunks of "long.md" are not ones this app makes: chunk 0 (characters 0-${LONG.length}) is ${LONG.length.toLocaleString("en-US")} characters long, over its chunk size of 300.`,
    );
    const outside = withDocument("sla.md", (d) => {
      d.chunks[0] = { index: 0, start: 0, end: d.document.text.length + 500 };
      return [d, ...vectorLines(d.chunks.length)];
    });
    expect(await refused(sealed(outside), "chunk outside")).toMatch(/chunk 0 \(characters 0-\d+\) is not a range inside its text/);
  });

  it("refuses 2,000 chunks each spanning the whole text, and chunks repeated or overlapping beyond the overlap", async () => {
    const many = withDocument("sla.md", (d) => {
      d.chunks = Array.from({ length: 2000 }, (_, index) => ({ index, start: 0, end: d.document.text.length }));
      return [d, ...vectorLines(2000)];
    });
    expect(await refused(sealed(many), "many chunks")).toMatch(
      new RegExp(`"sla\\.md" are not ones this app makes: it lists 2,000 chunks for a text of ${ARTICLES.sla.length} characters`),
    );
    const repeated = withDocument("long.md", (d) => {
      d.chunks = [...d.chunks, ...d.chunks].map((c, index) => ({ ...c, index }));
      return [d, ...vectorLines(d.chunks.length)];
    });
    expect(await refused(sealed(repeated), "repeated chunks")).toMatch(/does not start and end after chunk/);
    const overlapping = withDocument("long.md", (d) => {
      d.chunks[1] = { index: 1, start: d.chunks[0].end - 100, end: d.chunks[0].end + 150 };
      return [d, ...vectorLines(d.chunks.length)];
    });
    expect(await refused(sealed(overlapping), "overlapping chunks")).toMatch(
      /chunk 1 .* shares 100 characters with chunk 0, more than its overlap of 40\./,
    );
    const gap = withDocument("long.md", (d) => {
      d.chunks = d.chunks.filter((_, i) => i !== 1).map((c, index) => ({ ...c, index }));
      return [d, ...vectorLines(d.chunks.length)];
    });
    expect(await refused(sealed(gap), "chunk left out")).toMatch(/characters \d+-\d+ of its text are in no chunk\./);
  });

  it("refuses a text over MAX_TEXT_CHARS and chunk settings the upload form refuses", async () => {
    const big = "Warehouse notes. ".repeat(300);
    const long = withDocument("sla.md", (d) => {
      d.document.text = big;
      d.document.chunk_size = 100_000;
      d.chunks = [{ index: 0, start: 0, end: big.length }];
      return [d, ...vectorLines(1)];
    });
    expect(await refused(sealed(long), "long text")).toMatch(
      /: "sla\.md" has more than 4,000 characters of text, over the MAX_TEXT_CHARS limit; split it into smaller files\.$/,
    );
    const huge = withDocument("sla.md", (d) => {
      d.document.chunk_size = 1_000_000;
      return [d, ...vectorLines(d.chunks.length)];
    });
    expect(await refused(sealed(huge), "huge chunks")).toMatch(/"sla\.md": chunk_size must be at most 100000\.$/);
  });

  it("refuses a pair whose query or note is over the pairs API's caps, or whose document name is not one uploads store", async () => {
    const pairAt = lines.findIndex((l) => l.type === "pair");
    const withPair = (edit: Record<string, unknown>) => lines.map((l, i) => (i === pairAt ? { ...l, ...edit } : l));
    expect(await refused(sealed(withPair({ query: "q".repeat(2001) })), "long query")).toBe(
      `Line ${pairAt + 1} of the agent file: a pair line that does not fit the format (query: The query is longer than 2000 characters.).`,
    );
    expect(await refused(sealed(withPair({ note: "n".repeat(501) })), "long note")).toBe(
      `Line ${pairAt + 1} of the agent file: a pair line that does not fit the format (note: The note is at most 500 characters.).`,
    );
    expect(await refused(sealed(withPair({ expected_filename: "../secrets\u202e.md" })), "odd name")).toMatch(
      /expected_filename: not a document name this app stores/,
    );
  });
});

describe("POST /api/agents/import, one at a time", () => {
  it("answers 409 naming the import that runs to a second one, which writes nothing; the next import after it runs", async () => {
    const file = new TextEncoder().encode(sealed(lines));
    const header = file.indexOf(10) + 1;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    // The first import gets its agent line, then waits for the rest of its file.
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(file.slice(0, header));
      },
      async pull(c) {
        await released;
        c.enqueue(file.slice(header));
        c.close();
      },
    });
    const first = importRoute.POST(request(body, "First import"), { params: Promise.resolve({}) });
    // The first import has read its header and named itself once its agent exists.
    while (!findAgentByName("First import")) await new Promise((r) => setImmediate(r));

    const seq = agentSeq();
    const second = await importFile(sealed(lines), "Second import");
    expect(second.status).toBe(409);
    expect(second.body.error).toMatchObject({
      code: "conflict",
      message: expect.stringMatching(
        /^The import of agent "First import" is already running \(started .*\)\. Imports run one at a time; try again when it finishes\.$/,
      ),
    });
    expect(agentSeq()).toBe(seq);
    expect(findAgentByName("Second import")).toBeUndefined();

    release();
    expect((await first).status).toBe(201);
    expect(listDocuments(findAgentByName("First import")!.id).map((d) => d.status)).toEqual(["ready", "ready"]);
    // Released: the next import is read (and refused for its own reason, not for the first one).
    expect(await refused("", "After the first")).toBe("The agent file is empty.");
  });
});
