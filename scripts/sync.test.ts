import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as agents from "@/app/api/agents/route";
import * as agent from "@/app/api/agents/[id]/route";
import * as documents from "@/app/api/agents/[id]/documents/route";
import * as document from "@/app/api/agents/[id]/documents/[docId]/route";
import { stampPeer } from "@/lib/auth/peer";
import { getDocument, listDocuments } from "@/lib/db/documents";
import { ACCEPTED_EXTENSIONS } from "@/lib/extract/detect";
import { sanitizeDocumentPath } from "@/lib/validations/filename";
import { newAgent } from "@/test/helpers";
import { ACCEPTED_EXTENSIONS as SYNC_EXTENSIONS, documentName } from "./sync.mjs";

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
/** A test's say in how a request is answered: `handle` runs the app's route; null answers nothing. */
type Hook = (method: string, pathname: string, handle: () => Promise<Response>, req: http.IncomingMessage) => Promise<Response | null>;

// The app's own route handlers behind a real HTTP server, so the CLI talks HTTP exactly as against the app.
const ROUTES: [string, RegExp, Handler][] = [
  ["GET", /^\/api\/agents$/, agents.GET as Handler],
  ["GET", /^\/api\/agents\/(?<id>[^/]+)$/, agent.GET as Handler],
  ["GET", /^\/api\/agents\/(?<id>[^/]+)\/documents$/, documents.GET as Handler],
  ["POST", /^\/api\/agents\/(?<id>[^/]+)\/documents$/, documents.POST as Handler],
  ["PATCH", /^\/api\/agents\/(?<id>[^/]+)\/documents\/(?<docId>[^/]+)$/, document.PATCH as Handler],
  ["DELETE", /^\/api\/agents\/(?<id>[^/]+)\/documents\/(?<docId>[^/]+)$/, document.DELETE as Handler],
];

let server: http.Server;
let url: string;
let hook: Hook | undefined;
const root = fs.mkdtempSync(path.join(os.tmpdir(), "kb-sync-"));

beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    // The upload routes run the access checks themselves; they read the stamp the app's server puts on.
    stampPeer(req);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const pathname = new URL(req.url!, "http://x").pathname;
    const match = ROUTES.map(([m, re, h]) => [m === req.method && re.exec(pathname), h] as const).find(([m]) => m);
    if (!match) return void res.writeHead(404).end("{}");
    const handle = () =>
      match[1](
        new Request(`http://x${req.url}`, {
          method: req.method,
          headers: req.headers as Record<string, string>,
          body: req.method === "GET" || req.method === "DELETE" ? undefined : Buffer.concat(chunks),
        }),
        { params: Promise.resolve({ ...(match[0] as RegExpExecArray).groups }) },
      );
    const response = hook ? await hook(req.method!, pathname, handle, req) : await handle();
    if (response) res.writeHead(response.status, Object.fromEntries(response.headers)).end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  fs.rmSync(root, { recursive: true, force: true });
});

function cli(...args: string[]) {
  const child = spawn(process.execPath, ["scripts/sync.mjs", "--url", url, ...args], { cwd: path.resolve(import.meta.dirname, "..") });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const done = new Promise<{ code: number; out: string; err: string }>((resolve) =>
    child.on("close", (code) => resolve({ code: code ?? -1, out, err })),
  );
  return { child, done };
}
const sync = (...args: string[]) => cli(...args).done;

/** A fresh folder under the temp root with these files (relative path → content). */
function folder(files: Record<string, string>) {
  const dir = fs.mkdtempSync(path.join(root, "folder-"));
  for (const [rel, text] of Object.entries(files)) write(dir, rel, text);
  return dir;
}
function write(dir: string, rel: string, text: string) {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), text);
}

const ready = (agentId: number) => listDocuments(agentId).filter((d) => d.status === "ready");
const readyIds = (agentId: number) => Object.fromEntries(ready(agentId).map((d) => [d.filename, d.id]));
const readyNames = (agentId: number) =>
  ready(agentId)
    .map((d) => d.filename)
    .sort();

const TEXT = {
  a: "Support hours. The support team answers email from 8 am to 6 pm on working days. Premium customers can also call.",
  setup: "Setup guide. Install the agent, paste the API key into the settings page and restart the service to apply it.",
  faq: "Frequently asked questions. Refunds take five to ten days. Invoices are in the billing section as PDF files.",
};

describe("npm run sync", () => {
  let a: ReturnType<typeof newAgent>;
  let dir: string;
  let firstIds: Record<string, number>;
  beforeAll(() => {
    a = newAgent("sync");
    dir = folder({
      "a.md": TEXT.a,
      "guides/setup.md": TEXT.setup,
      "guides/faq.txt": TEXT.faq,
      "guides/diagram.svg": "not a document",
      ".git/description.md": "git's own file",
      "node_modules/pkg/readme.md": "a dependency's readme",
    });
    // Not followed: it would bring the same files in again under another name.
    fs.symlinkSync(path.join(dir, "guides"), path.join(dir, "linked"));
    fs.symlinkSync("missing.md", path.join(dir, "broken.md"));
  });

  it("uploads the supported files of a folder and its subfolders, named by their relative paths", async () => {
    const res = await sync("--agent", a.name, dir);
    expect(res.err).toBe("");
    expect(res.code).toBe(0);
    expect(res.out).toContain("3 new, 0 changed, 0 to re-chunk, 0 unchanged, 0 missing from the folder, 2 links not followed.");
    expect(res.out).toContain("(1 file of other types left out;");
    expect(res.out).toMatch(/^ {2}skipped {3}broken\.md \(a link to nothing \(broken\); not followed\)$/m);
    expect(res.out).toMatch(/^ {2}skipped {3}linked \(the same folder as guides, which is synced already; not followed\)$/m);
    expect(res.out).toMatch(/^ {2}new {7}guides\/setup\.md$/m);
    expect(res.out).toMatch(/^\[\d\/3\] added guides\/setup\.md \(1 chunk\)$/m);
    expect(res.out).toContain(`Agent "${a.name}" (${a.id}): 3 added, 0 replaced, 0 re-chunked, 0 removed, 0 unchanged, 0 failed.`);
    expect(readyNames(a.id)).toEqual(["a.md", "guides/faq.txt", "guides/setup.md"]);
    firstIds = readyIds(a.id);
  });

  it("is in step on a second run and changes nothing", async () => {
    const res = await sync("--agent", String(a.id), dir);
    expect(res.code).toBe(0);
    expect(res.out).toContain(`Agent "${a.name}" (${a.id}) is in step with the folder: 3 documents unchanged, nothing to do.`);
    expect(readyIds(a.id)).toEqual(firstIds);
  });

  it("plans a changed, a new and a missing file; --dry-run changes nothing; the missing one goes only with --delete", async () => {
    write(dir, "a.md", `${TEXT.a} Changed: weekends too.`);
    write(dir, "guides/new.md", "Release notes. Version 2 adds folder sync and faster search.");
    fs.rmSync(path.join(dir, "guides/faq.txt"));

    const dry = await sync("--agent", a.name, dir, "--delete", "--dry-run");
    expect(dry.code).toBe(0);
    expect(dry.out).toContain("1 new, 1 changed, 0 to re-chunk, 1 unchanged, 1 missing from the folder, 2 links not followed.");
    expect(dry.out).toMatch(/^ {2}missing {3}guides\/faq\.txt \(will be removed\)$/m);
    expect(dry.out).toContain("Dry run: nothing was changed.");
    expect(readyIds(a.id)).toEqual(firstIds);

    const kept = await sync("--agent", a.name, dir);
    expect(kept.code).toBe(0);
    expect(kept.out).toMatch(/^ {2}missing {3}guides\/faq\.txt \(kept; --delete would remove it\)$/m);
    expect(kept.out).toMatch(/^\[\d\/2\] replaced a\.md \(1 chunk\)$/m);
    expect(kept.out).toMatch(/^\[\d\/2\] added guides\/new\.md \(1 chunk\)$/m);
    expect(kept.out).toContain(
      "1 added, 1 replaced, 0 re-chunked, 0 removed, 1 unchanged, 1 missing from the folder (kept; --delete removes it), 0 failed.",
    );
    expect(readyNames(a.id)).toEqual(["a.md", "guides/faq.txt", "guides/new.md", "guides/setup.md"]);
    expect(readyIds(a.id)["guides/faq.txt"]).toBe(firstIds["guides/faq.txt"]);
    expect(readyIds(a.id)["a.md"]).not.toBe(firstIds["a.md"]);

    const removed = await sync("--agent", a.name, dir, "--delete");
    expect(removed.code).toBe(0);
    expect(removed.out).toContain("[1/1] removed guides/faq.txt");
    expect(readyNames(a.id)).toEqual(["a.md", "guides/new.md", "guides/setup.md"]);
  });

  it("re-chunks unchanged documents with --chunk-size and --overlap, then is in step with them", async () => {
    const before = readyIds(a.id);
    const res = await sync("--agent", a.name, dir, "--chunk-size", "200", "--overlap", "20");
    expect(res.code).toBe(0);
    expect(res.out).toContain("0 new, 0 changed, 3 to re-chunk, 0 unchanged");
    expect(res.out).toMatch(/^ {2}re-chunk {2}a\.md \(800\/100\/boundary → 200\/20\/boundary\)$/m);
    expect(res.out).toContain("0 added, 0 replaced, 3 re-chunked, 0 removed, 0 unchanged, 0 failed.");
    expect(ready(a.id).map((d) => [d.filename, d.chunk_size, d.chunk_overlap])).toEqual(
      expect.arrayContaining([
        ["a.md", 200, 20],
        ["guides/new.md", 200, 20],
        ["guides/setup.md", 200, 20],
      ]),
    );
    expect(ready(a.id)).toHaveLength(3);
    expect(Object.values(readyIds(a.id))).not.toContain(before["a.md"]);

    const again = await sync("--agent", a.name, dir, "--chunk-size", "200", "--overlap", "20");
    expect(again.out).toContain("is in step with the folder: 3 documents unchanged");
    // Without chunk options the documents' own settings stand.
    expect((await sync("--agent", a.name, dir)).out).toContain("is in step with the folder");
  });

  it("moves a renamed file's document with --delete (the app keeps one document per content)", async () => {
    fs.renameSync(path.join(dir, "guides/setup.md"), path.join(dir, "setup.md"));
    const kept = await sync("--agent", a.name, dir);
    expect(kept.code).toBe(0);
    expect(kept.out).toMatch(/^ {2}duplicate setup\.md \(same content as guides\/setup\.md, which the app keeps instead; not uploaded\)$/m);
    expect(kept.out).toContain("is in step with the folder");
    const moved = await sync("--agent", a.name, dir, "--delete");
    expect(moved.code).toBe(0);
    expect(moved.out).toContain("1 new, 0 changed, 0 to re-chunk, 2 unchanged, 1 missing from the folder, 2 links not followed.");
    expect(moved.out).toContain("[1/2] removed guides/setup.md");
    expect(moved.out).toContain("[2/2] added setup.md");
    expect(readyNames(a.id)).toEqual(["a.md", "guides/new.md", "setup.md"]);
  });
});

describe("npm run sync, metadata", () => {
  it("carries each file's front matter, with --metadata over it for every file it uploads", async () => {
    const a = newAgent("sync metadata");
    const dir = folder({
      "router.md": `---\nproduct: router\nlocale: en\n---\n${TEXT.setup}`,
      "faq.txt": TEXT.faq,
    });
    const bad = await sync("--agent", a.name, dir, "--metadata", "[1]");
    expect(bad).toMatchObject({ code: 2, err: expect.stringContaining("--metadata must be a JSON object") });
    expect(listDocuments(a.id)).toEqual([]);
    const res = await sync("--agent", a.name, dir, "--metadata", '{"locale": "de", "team": "support"}');
    expect(res.code, res.err).toBe(0);
    const meta = Object.fromEntries(ready(a.id).map((d) => [d.filename, d.metadata]));
    expect(meta).toEqual({
      "router.md": { product: "router", locale: "de", team: "support" },
      "faq.txt": { locale: "de", team: "support" },
    });
  });
});

describe("npm run sync, links", () => {
  const SECRET = "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  /** Every ready document's text of the agent, to look for text that must not be there. */
  const texts = (agentId: number) =>
    listDocuments(agentId)
      .map((d) => getDocument(agentId, d.id).text)
      .join("\n");
  let outside: string;
  beforeAll(() => {
    outside = fs.realpathSync(folder({ "credentials.txt": SECRET, "private/secret.md": `Private notes. ${SECRET}` }));
  });

  it("does not follow a link to a file outside the folder, and the plan says so", async () => {
    const a = newAgent("sync file link out");
    const dir = folder({ "notes.md": TEXT.a });
    fs.symlinkSync(path.join(outside, "credentials.txt"), path.join(dir, "credentials.txt"));
    const skippedRow = `  skipped   credentials.txt (a link to ${path.join(outside, "credentials.txt")}, outside the folder; not followed)`;

    const dry = await sync("--agent", a.name, dir, "--dry-run");
    expect(dry.code).toBe(0);
    expect(dry.out).toContain("1 new, 0 changed, 0 to re-chunk, 0 unchanged, 0 missing from the folder, 1 link not followed.");
    expect(dry.out.split("\n")).toContain(skippedRow);

    const res = await sync("--agent", a.name, dir);
    expect(res.code).toBe(0);
    expect(res.out.split("\n")).toContain(skippedRow);
    expect(readyNames(a.id)).toEqual(["notes.md"]);
    expect(texts(a.id)).toBe(TEXT.a);
  });

  it("does not follow a link to a folder outside the folder, and the plan says so", async () => {
    const a = newAgent("sync dir link out");
    const dir = folder({ "notes.md": TEXT.a });
    fs.symlinkSync(path.join(outside, "private"), path.join(dir, "shared"));
    const res = await sync("--agent", a.name, dir);
    expect(res.code).toBe(0);
    expect(res.out).toContain("1 new, 0 changed, 0 to re-chunk, 0 unchanged, 0 missing from the folder, 1 link not followed.");
    expect(res.out.split("\n")).toContain(
      `  skipped   shared (a link to ${path.join(outside, "private")}, outside the folder; not followed)`,
    );
    expect(readyNames(a.id)).toEqual(["notes.md"]);
    expect(texts(a.id)).toBe(TEXT.a);
  });

  it("follows links to files and folders inside the folder under the link's name, once each, without looping", async () => {
    const a = newAgent("sync link inside");
    const dir = folder({ "notes.md": TEXT.a, ".drafts/v2.md": TEXT.setup, ".site/docs/faq.md": TEXT.faq });
    fs.symlinkSync(".drafts/v2.md", path.join(dir, "current.md"));
    fs.symlinkSync(".site/docs", path.join(dir, "docs"));
    // Loops back to the folder, and up to a folder already followed: neither is read twice.
    fs.symlinkSync("..", path.join(dir, ".site/docs/up"));
    fs.symlinkSync("../..", path.join(dir, ".site/docs/top"));
    // Another name for a file synced anyway.
    fs.symlinkSync("notes.md", path.join(dir, "notes-link.md"));

    const res = await sync("--agent", a.name, dir);
    expect(res.code).toBe(0);
    expect(res.out).toContain("3 new, 0 changed, 0 to re-chunk, 0 unchanged, 0 missing from the folder, 3 links not followed.");
    const rows = res.out.split("\n");
    expect(rows).toContain("  skipped   docs/top (the synced folder itself; not followed)");
    // docs/up leads to .site, whose docs folder is the one followed as docs.
    expect(rows).toContain("  skipped   docs/up/docs (the same folder as docs, which is synced already; not followed)");
    expect(rows).toContain("  skipped   notes-link.md (the same file as notes.md, which is synced already; not followed)");
    expect(readyNames(a.id)).toEqual(["current.md", "docs/faq.md", "notes.md"]);
    expect(getDocument(a.id, readyIds(a.id)["current.md"]).text).toBe(TEXT.setup);
  });
});

describe("npm run sync, files the app refuses and interruptions", () => {
  it("exits 1 naming each rejected file and its reason; the other files are indexed, nothing is kept of the rejected", async () => {
    const a = newAgent("sync rejects");
    const dir = folder({ "good.md": TEXT.a, "empty.md": "", "bad.pdf": "plain text, not a PDF" });
    const res = await sync("--agent", a.name, dir);
    expect(res.code).toBe(1);
    expect(res.out).toMatch(/^\[\d\/3\] rejected empty\.md: .*empty/m);
    expect(res.out).toMatch(/^\[\d\/3\] rejected bad\.pdf: .*PDF/m);
    expect(res.out).toContain("1 added, 0 replaced, 0 re-chunked, 0 removed, 0 unchanged, 2 failed.");
    expect(listDocuments(a.id).map((d) => [d.filename, d.status])).toEqual([["good.md", "ready"]]);
  });

  it("after a run interrupted mid-upload, a re-run finishes the job with no duplicate and nothing missing", async () => {
    const a = newAgent("sync interrupted");
    const names = Array.from({ length: 45 }, (_, i) => `notes/note-${String(i).padStart(2, "0")}.md`);
    const dir = folder(Object.fromEntries(names.map((n, i) => [n, `Note ${i}. The meeting about topic ${i} decided item ${i * 7}.`])));
    let uploads = 0;
    let arrived!: () => void;
    let release!: () => void;
    let finished!: () => void;
    const arrival = new Promise<void>((r) => (arrived = r));
    const released = new Promise<void>((r) => (release = r));
    const handled = new Promise<void>((r) => (finished = r));
    // The second of three uploads is held back until the CLI has been stopped; then the server finishes it.
    hook = async (method, _pathname, handle) => {
      if (method !== "POST" || ++uploads !== 2) return handle();
      arrived();
      await released;
      try {
        return await handle();
      } finally {
        finished();
      }
    };
    try {
      const run = cli("--agent", a.name, dir);
      await arrival;
      run.child.kill("SIGINT");
      const stopped = await run.done;
      expect(stopped.code).toBe(130);
      expect(stopped.out).toContain("Interrupted. A re-run of the same command finishes the job.");
      expect(stopped.out).toContain("[20/45] added notes/note-19.md");
      release();
      await handled;
    } finally {
      hook = undefined;
    }
    const rerun = await sync("--agent", a.name, dir);
    expect(rerun.code).toBe(0);
    expect(rerun.out).toContain("5 new, 0 changed, 0 to re-chunk, 40 unchanged");
    expect(readyNames(a.id)).toEqual(names);
    expect(listDocuments(a.id)).toHaveLength(45);
  });

  it("tries again after a dropped connection and a 503, and names documents as the app cleans them", async () => {
    const a = newAgent("sync retries");
    const dir = folder({ "my  notes.md": TEXT.faq, ["cafe\u0301.md"]: TEXT.setup });
    const answers: ("drop" | "503")[] = ["drop", "503"];
    hook = async (method, _pathname, handle, req) => {
      const next = method === "POST" ? answers.shift() : undefined;
      if (next === "drop") {
        req.socket.destroy();
        return null;
      }
      if (next === "503") {
        const error = { code: "vector_store_unavailable", message: "The vector store (Chroma) did not answer." };
        return Response.json({ error, documents: [] }, { status: 503, headers: { "Retry-After": "0" } });
      }
      return handle();
    };
    try {
      const res = await sync("--agent", a.name, dir);
      expect(res.code).toBe(0);
      expect(res.out).toMatch(/The app does not answer at .* Trying again in 2 s\./);
      expect(res.out).toContain("The vector store (Chroma) did not answer. Trying again in 0 s.");
      expect(res.out).toContain("2 added");
    } finally {
      hook = undefined;
    }
    expect(readyNames(a.id)).toEqual(["caf\u00e9.md", "my notes.md"]);
    expect((await sync("--agent", a.name, dir)).out).toContain("is in step with the folder: 2 documents unchanged");
  });

  it("exits 2 for an unknown agent (listing the agents), a missing folder, bad chunk settings or an app that does not answer", async () => {
    const a = newAgent("sync args");
    const dir = folder({ "a.md": TEXT.a });
    const unknown = await sync("--agent", "no such agent", dir);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('No agent with the id or name "no such agent". Agents: ');
    expect(unknown.err).toContain(`${a.id} "${a.name}"`);
    const nowhere = await sync("--agent", a.name, path.join(root, "does-not-exist"));
    expect(nowhere).toMatchObject({ code: 2, err: expect.stringContaining("There is no folder") });
    const overlap = await sync("--agent", a.name, dir, "--overlap", "300", "--chunk-size", "200");
    expect(overlap).toMatchObject({ code: 2, err: expect.stringContaining("--overlap (300) must be smaller than --chunk-size (200).") });
    expect((await sync("--agent", a.name)).code).toBe(2);
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const away = await sync("--agent", a.name, dir, "--url", `http://127.0.0.1:${port}`);
    expect(away).toMatchObject({ code: 2, err: expect.stringContaining("The app does not answer at") });
    expect(listDocuments(a.id)).toEqual([]);
  });

  it("keeps the script's copies of the app's rules: the accepted extensions, and how a kept path is cleaned", () => {
    expect(SYNC_EXTENSIONS).toEqual(ACCEPTED_EXTENSIONS);
    for (const name of [
      "guides/setup.md",
      "a  b/ c .md",
      "x\u200By/z\u202e.md",
      "tab\there.md",
      "cafe\u0301/menu.md",
      "back\\slash.md",
      "./a/../b.md",
      "deep/er/still/file.txt",
    ]) {
      expect(documentName(name), name).toBe(sanitizeDocumentPath(name));
    }
  });
});
