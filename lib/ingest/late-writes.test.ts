import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";

/**
 * Chroma can apply a write after the app gave up on it: the request reached the server, the app
 * was told it failed (its deadline passed, or a gateway in front of Chroma gave up), the ingest
 * failed and its clean-up ran, and then the write landed. Here a proxy in front of the test's
 * real Chroma answers every add 504 at once, as a gateway that gave up does, holds it until the
 * test lets it go, after the clean-up, and then delivers it anyway. The order is the test's, not
 * a race between timers: no request waits for a deadline, so a busy machine changes nothing.
 */

let proxy: http.Server;
let upstream: string;
const held = new Set<Promise<void>>();
let holdAdds = false;
let letGo: () => void = () => {};
let released = new Promise<void>((r) => (letGo = r));
/** Delivers the adds held so far; adds held after this wait for the next call. */
const releaseHeld = () => {
  letGo();
  released = new Promise<void>((r) => (letGo = r));
};

beforeAll(async () => {
  upstream = process.env.CHROMA_URL!;
  proxy = http.createServer((req, res) => {
    const body: Buffer[] = [];
    req.on("data", (b: Buffer) => body.push(b));
    req.on("end", () => {
      const hold = holdAdds && req.method === "POST" && /\/add$/.test(req.url ?? "");
      const until = released;
      if (hold) {
        res.writeHead(504, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: "GatewayTimeout", message: "Chroma did not answer the gateway in time" }));
      }
      const delivered = (async () => {
        if (hold) await until;
        // Delivered although the app was already told the write failed.
        const answer = await fetch(upstream + req.url, {
          method: req.method,
          headers: { "content-type": req.headers["content-type"] ?? "application/json" },
          body: req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(body),
        });
        const bytes = Buffer.from(await answer.arrayBuffer());
        if (!res.headersSent && !res.destroyed) {
          res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
          res.end(bytes);
        }
      })().catch(() => {
        if (!res.headersSent && !res.destroyed) res.destroy();
      });
      if (hold) {
        held.add(delivered);
        void delivered.finally(() => held.delete(delivered));
      }
    });
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  process.env.CHROMA_URL = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  releaseHeld();
  await Promise.all([...held]);
  proxy.closeAllConnections();
  await new Promise((r) => proxy.close(r));
});

afterEach(() => {
  vi.useRealTimers();
});

const lib = async () => ({
  ...(await import("../../test/helpers")),
  ...(await import("../db/documents")),
  ...(await import("./cleanup")),
  ...(await import("../index-upkeep/audit")),
  ...(await import("./pipeline")),
  ...(await import("../vector-store/client")),
  ...(await import("../embeddings/configured")),
});

describe("a write that reaches Chroma after its ingest failed", () => {
  it("is removed by the clean-up's later check, for several files at once", async () => {
    const {
      newAgent,
      ingest,
      ingestFile,
      enc,
      listDocuments,
      runCleanup,
      pendingCleanups,
      auditIndex,
      collectionFor,
      embedder,
      LATE_WRITE_CHECK_MS,
    } = await lib();
    const collection = await collectionFor(embedder());
    const agentVectors = async (agentId: number) => (await collection.get({ where: { agent_id: agentId }, include: [] })).ids;

    for (const files of [4]) {
      const agent = newAgent(`late writes ${files}`);
      const kept = await ingest(agent.id, "kept.txt", "A ready article about the blue lamp.");
      expect(kept.status).toBe("ready");

      // The clean-up's check for late writes comes LATE_WRITE_CHECK_MS after its delete by the
      // clock: the test's clock, moved on when the test has let the held adds land.
      vi.useFakeTimers({ toFake: ["Date"] });
      holdAdds = true;
      let results;
      try {
        results = await Promise.all(
          Array.from({ length: files }, (_, f) => {
            const text = Array.from({ length: 40 }, (_, i) => `Line ${i} of guide ${f} on the green lamp.`).join(" ");
            return ingestFile(agent.id, { filename: `guide-${f}.txt`, bytes: enc(text) }, { chunkSize: 80, chunkOverlap: 0 });
          }),
        );
      } finally {
        holdAdds = false;
      }
      expect(results.map((r) => r.code)).toEqual(Array(files).fill("vector_store_unavailable"));
      expect(listDocuments(agent.id).map((d) => d.id)).toEqual([kept.document_id]);
      const queued = pendingCleanups().filter((c) => c.agent_id === agent.id);
      expect(queued).toHaveLength(files);
      expect(queued.every((c) => c.late_writes === 1)).toBe(true);

      // Every failed ingest's clean-up deletes what it wrote (retried until Chroma confirms)
      // while the adds are still held: Chroma holds only the kept document.
      const deleted = () => pendingCleanups().filter((c) => c.agent_id === agent.id && c.removed_at !== null).length;
      await expect.poll(async () => (await runCleanup({ all: true }), deleted()), { timeout: 60_000, interval: 200 }).toBe(files);
      expect(held.size).toBeGreaterThan(0);
      expect(await agentVectors(agent.id)).toEqual([`doc${kept.document_id}#0`]);

      // The held adds land now, after the clean-up's delete.
      releaseHeld();
      await Promise.all([...held]);
      expect((await agentVectors(agent.id)).length).toBeGreaterThan(1);

      // The clean-up's check LATE_WRITE_CHECK_MS after its delete finds them and removes them, and
      // the check after that finds none.
      await expect
        .poll(
          async () => {
            vi.setSystemTime(Date.now() + LATE_WRITE_CHECK_MS + 1_000);
            return runCleanup({ all: true });
          },
          { timeout: 60_000, interval: 200 },
        )
        .toBe(0);
      expect(await agentVectors(agent.id)).toEqual([`doc${kept.document_id}#0`]);
      const audit = await auditIndex();
      expect(audit.orphan_vectors.filter((o) => o.agent_id === agent.id)).toEqual([]);
    }
  }, 240_000);

  it("a clean-up without late writes is done with its first successful delete", async () => {
    const { newAgent, ingest, deleteDocumentRow, runCleanup, pendingCleanups } = await lib();
    const agent = newAgent("plain delete");
    const doc = await ingest(agent.id, "a.txt", "An article about the red lamp.");
    deleteDocumentRow(agent.id, doc.document_id!);
    expect(
      pendingCleanups()
        .filter((c) => c.agent_id === agent.id)
        .map((c) => c.late_writes),
    ).toEqual([0]);
    expect(await runCleanup()).toBe(0);
  });
});
