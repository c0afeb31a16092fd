import { describe, expect, it, vi } from "vitest";

// A small request limit, so the job's room for files not yet indexed (twice the limit) is
// passed by a few hundred kilobytes.
vi.hoisted(() => {
  process.env.MAX_REQUEST_BYTES = String(64 * 1024);
});

import * as start from "@/app/api/agents/[id]/uploads/route";
import * as more from "@/app/api/agents/[id]/uploads/[jobId]/route";
import { call, filesForm } from "@/test/http";
import { newAgent, vectorsOf } from "@/test/helpers";
import { listDocuments } from "../db/documents";
import {
  addToUploadJob,
  endUploadJob,
  getUploadJob,
  JOB_FILES_IN_PARALLEL,
  JOB_STALL_MS,
  jobHeldBytesLimit,
  startUploadJob,
  uploadWaitTimer,
  type UploadJob,
} from "./uploads";

const enc = (s: string) => new TextEncoder().encode(s);
const article = (topic: string, i: number) =>
  `# ${topic} ${i}\n\nHow the ${topic} desk handles case ${i}: ask the ${topic} team, then write it down.`;
const files = (topic: string, from: number, n: number) =>
  Array.from({ length: n }, (_, k) => ({ filename: `${topic}-${from + k}.md`, bytes: enc(article(topic, from + k)) }));
const settings = { chunkSize: 800, chunkOverlap: 100 };
const finished = (agentId: number, id: string) => expect.poll(() => getUploadJob(agentId, id)?.finished, { timeout: 60_000 }).toBe(true);

describe("an upload sent in several requests", () => {
  it("is one job: it ends only when every expected file has come and been indexed", async () => {
    const agent = newAgent("job in parts");
    const job = startUploadJob(agent.id, files("refund", 0, 2), settings, 5);
    expect(job).toMatchObject({ expected_files: 5, finished: false });
    // The two it has are indexed; the job waits for the other three. A job is marked finished in
    // the same step that counts its last file done, so with both counted it has decided: not yet.
    await expect.poll(() => getUploadJob(agent.id, job.id)!.done_files, { timeout: 30_000 }).toBe(2);
    expect(getUploadJob(agent.id, job.id)!.finished).toBe(false);
    await addToUploadJob(agent.id, job.id, files("refund", 2, 3));
    await finished(agent.id, job.id);
    const done = getUploadJob(agent.id, job.id)!;
    expect(done.files.map((f) => [f.filename, f.result?.outcome])).toEqual([0, 1, 2, 3, 4].map((i) => [`refund-${i}.md`, "indexed"]));
    expect(done).toMatchObject({ done_files: 5, not_received: 0 });
    const docs = listDocuments(agent.id);
    expect(docs.map((d) => [d.filename, d.status]).sort()).toEqual([0, 1, 2, 3, 4].map((i) => [`refund-${i}.md`, "ready"]));
    for (const d of docs) expect((await vectorsOf(agent.id, d.id)).length).toBe(d.chunk_count);
  });

  it("refuses files past the expected count, for another agent, or after the job ended, and indexes none of them", async () => {
    const agent = newAgent("job limits");
    const job = startUploadJob(agent.id, files("badge", 0, 1), settings, 2);
    await expect(addToUploadJob(agent.id, job.id, files("badge", 1, 2))).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringMatching(/expects 2 files and has 1; these 2 would make 3/),
    });
    const other = newAgent("job limits other");
    await expect(addToUploadJob(other.id, job.id, files("badge", 1, 1))).rejects.toMatchObject({ code: "not_found" });
    await expect(addToUploadJob(agent.id, "no-such-job", files("badge", 1, 1))).rejects.toMatchObject({ code: "not_found" });
    expect(() => startUploadJob(agent.id, files("badge", 5, 3), settings, 2)).toThrow(/expected_files must be a whole number from 3/);

    // The client gives up on the rest: the job ends with what it has.
    endUploadJob(agent.id, job.id);
    await finished(agent.id, job.id);
    expect(getUploadJob(agent.id, job.id)).toMatchObject({ done_files: 1, not_received: 1 });
    await expect(addToUploadJob(agent.id, job.id, files("badge", 1, 1))).rejects.toMatchObject({ code: "conflict" });
    expect(listDocuments(agent.id).map((d) => d.filename)).toEqual(["badge-0.md"]);
    expect(listDocuments(other.id)).toEqual([]);
  });

  it("takes requests sent at the same time without ever passing the expected count", async () => {
    const agent = newAgent("job parallel adds");
    const job = startUploadJob(agent.id, files("mirror", 0, 1), settings, 4);
    const answers = await Promise.allSettled([
      addToUploadJob(agent.id, job.id, files("mirror", 1, 1)),
      addToUploadJob(agent.id, job.id, files("mirror", 2, 2)),
      addToUploadJob(agent.id, job.id, files("mirror", 4, 1)),
    ]);
    expect(answers.map((a) => a.status)).toEqual(["fulfilled", "fulfilled", "rejected"]);
    await finished(agent.id, job.id);
    expect(getUploadJob(agent.id, job.id)).toMatchObject({ files_received: 4, done_files: 4, not_received: 0 });
    expect(
      listDocuments(agent.id)
        .map((d) => d.filename)
        .sort(),
    ).toEqual(["mirror-0.md", "mirror-1.md", "mirror-2.md", "mirror-3.md"]);
  });

  it("is given up when the rest does not come for a while", async () => {
    const agent = newAgent("job stalled");
    const job = startUploadJob(agent.id, files("locker", 0, 1), settings, 3);
    await expect.poll(() => getUploadJob(agent.id, job.id)!.done_files, { timeout: 30_000 }).toBe(1);
    expect(getUploadJob(agent.id, job.id)!.finished).toBe(false);
    const now = Date.now();
    const clock = vi.spyOn(Date, "now").mockReturnValue(now + JOB_STALL_MS + 1000);
    try {
      expect(getUploadJob(agent.id, job.id)).toMatchObject({ finished: true, not_received: 2, done_files: 1 });
      await expect(addToUploadJob(agent.id, job.id, files("locker", 1, 1))).rejects.toMatchObject({
        code: "conflict",
        message: expect.stringMatching(/without 2 of its files.*2 minutes/),
      });
    } finally {
      clock.mockRestore();
    }
  });

  it("indexes more files at once than one request's worth, and a request adding files answers only when the job has room", async () => {
    const agent = newAgent("job room");
    // 600 files of about 1 KB: 600 KB against room for 128 KB.
    const all = files("printer", 0, 600).map((f) => ({ ...f, bytes: enc(new TextDecoder().decode(f.bytes) + " More words.".repeat(80)) }));
    const job = startUploadJob(agent.id, all.slice(0, 50), settings, all.length);
    let maxIndexing = 0;
    let maxQueued = 0;
    let maxActiveListed = 0;
    const sample = setInterval(() => {
      const j = getUploadJob(agent.id, job.id)!;
      maxIndexing = Math.max(maxIndexing, j.files.filter((f) => !f.result && f.stage !== "queued").length);
      maxQueued = Math.max(maxQueued, j.files.filter((f) => f.stage === "queued").length);
      // ?files=active lists the files being indexed, never the queued ones (all 600 are indexed).
      maxActiveListed = Math.max(maxActiveListed, getUploadJob(agent.id, job.id, { active: true })!.files.length);
    }, 5);
    const heldWhenAnswered: number[] = [];
    const held = (j: UploadJob) => j.files.filter((f) => !f.result).reduce((n, f) => n + f.bytes, 0);
    try {
      for (let i = 50; i < all.length; i += 50) {
        const j = await addToUploadJob(agent.id, job.id, all.slice(i, i + 50));
        heldWhenAnswered.push(held(j));
      }
      await finished(agent.id, job.id);
    } finally {
      clearInterval(sample);
    }
    // The later requests found the job full and waited for files to be indexed first.
    expect(Math.max(...heldWhenAnswered)).toBeLessThanOrEqual(jobHeldBytesLimit());
    expect(all.reduce((n, f) => n + f.bytes.byteLength, 0)).toBeGreaterThan(3 * jobHeldBytesLimit());
    expect(maxIndexing).toBeGreaterThan(32);
    expect(maxIndexing).toBeLessThanOrEqual(JOB_FILES_IN_PARALLEL);
    expect(maxQueued).toBeGreaterThan(0);
    expect(maxActiveListed).toBeLessThanOrEqual(JOB_FILES_IN_PARALLEL);
    expect(getUploadJob(agent.id, job.id)).toMatchObject({ done_files: 600, not_received: 0 });
    expect(listDocuments(agent.id).filter((d) => d.status === "ready").length).toBe(600);
  }, 120_000);
});

describe("the upload job API", () => {
  it("starts a job with 202, takes the next files on the job's own path, and reports both", async () => {
    const agent = newAgent("job api");
    const id = String(agent.id);
    const first = await call(start.POST, {
      body: filesForm([["a.md", article("coupon", 1)]], { expected_files: "2", chunk_size: "300" }),
      params: { id },
    });
    expect(first).toMatchObject({ status: 202, body: { expected_files: 2, finished: false } });
    const jobId = first.body.id as string;
    const second = await call(more.POST, { body: filesForm([["b.md", article("coupon", 2)]]), params: { id, jobId } });
    expect(second.status).toBe(202);
    await finished(agent.id, jobId);
    const got = await call(more.GET, { method: "GET", params: { id, jobId } });
    expect(got.body.files.map((f: { result: { outcome: string } }) => f.result.outcome)).toEqual(["indexed", "indexed"]);
    // The job's chunk settings apply to every file of it.
    expect(listDocuments(agent.id).map((d) => d.chunk_size)).toEqual([300, 300]);

    const past = await call(more.POST, { body: filesForm([["c.md", article("coupon", 3)]]), params: { id, jobId } });
    expect(past).toMatchObject({ status: 409, body: { error: { code: "conflict" } } });
    const bad = await call(start.POST, { body: filesForm([["c.md", "x"]], { expected_files: "many" }), params: { id } });
    expect(bad).toMatchObject({
      status: 422,
      body: { error: { code: "invalid_request", message: expect.stringMatching(/expected_files/) } },
    });
    expect((await call(more.GET, { method: "GET", params: { id, jobId: "nope" } })).status).toBe(404);
    expect(await call(more.GET, { method: "GET", url: "?files=some", params: { id, jobId } })).toMatchObject({
      status: 422,
      body: { error: { code: "invalid_request" } },
    });
    expect(listDocuments(agent.id).length).toBe(2);
  });

  it("lists only the files being indexed and those not indexed, with ?files=active", async () => {
    const agent = newAgent("job active files");
    const id = String(agent.id);
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const first = await call(start.POST, {
      body: filesForm(
        [
          ["a.md", article("lunch", 1)],
          ["b.txt", png],
          ["c.md", article("lunch", 3)],
        ],
        { expected_files: "4" },
      ),
      params: { id },
    });
    const jobId = first.body.id as string;
    await expect
      .poll(async () => (await call(more.GET, { method: "GET", params: { id, jobId } })).body.done_files, { timeout: 30_000 })
      .toBe(3);
    // Waiting for the fourth file: the two indexed ones are counted, not listed.
    const open = await call(more.GET, { method: "GET", url: "?files=active", params: { id, jobId } });
    expect(open.body).toMatchObject({ expected_files: 4, files_received: 3, done_files: 3, finished: false });
    expect(
      open.body.files.map((f: { index: number; filename: string; result: { outcome: string } }) => [f.index, f.filename, f.result.outcome]),
    ).toEqual([[1, "b.txt", "rejected"]]);
    await call(more.POST, { body: filesForm([["d.md", article("lunch", 4)]]), params: { id, jobId } });
    await finished(agent.id, jobId);
    const all = await call(more.GET, { method: "GET", params: { id, jobId } });
    expect(all.body.files.map((f: { filename: string }) => f.filename)).toEqual(["a.md", "b.txt", "c.md", "d.md"]);
    expect(all.body.files.every((f: { index?: number }) => f.index === undefined)).toBe(true);
  });

  it("answers a progress request with ?wait=S once the upload has finished, or after S seconds", async () => {
    const agent = newAgent("job wait");
    const id = String(agent.id);
    const first = await call(start.POST, { body: filesForm([["a.md", article("visa", 1)]], { expected_files: "2" }), params: { id } });
    const jobId = first.body.id as string;
    await expect.poll(() => getUploadJob(agent.id, jobId)!.done_files, { timeout: 30_000 }).toBe(1);
    // The waits' clock is the test's: a wait runs out when the test ends it, so what is checked is
    // what the answer waited for, not how long anything took.
    const timers: { ms: number; end: () => void; stopped: boolean }[] = [];
    let started: () => void = () => {};
    const timerStarted = () => new Promise<void>((r) => (started = r));
    const realTimer = uploadWaitTimer.start;
    uploadWaitTimer.start = (ms, end) => {
      const t = { ms, end, stopped: false };
      timers.push(t);
      started();
      return () => void (t.stopped = true);
    };
    // Whether a request has answered after everything else that was ready to run has run.
    const answeredYet = (p: Promise<unknown>) =>
      Promise.race([p.then(() => true), new Promise<boolean>((r) => setImmediate(() => r(false)))]);
    try {
      // Still waiting for its second file: the request waits its S seconds and is not answered
      // before they run out; then the answer says the upload has not finished.
      let waited = timerStarted();
      const open = call(more.GET, { method: "GET", url: "?wait=1", params: { id, jobId } });
      await waited;
      expect(timers.map((t) => t.ms)).toEqual([1_000]);
      expect(await answeredYet(open)).toBe(false);
      timers[0].end();
      expect((await open).body).toMatchObject({ finished: false, done_files: 1 });

      // A wait that starts before the last file comes answers when the upload ends: its own 30
      // seconds never run out here, so only the upload's end can answer it.
      waited = timerStarted();
      const waiting = call(more.GET, { method: "GET", url: "?files=active&wait=30", params: { id, jobId } });
      await waited;
      expect(timers[1]).toMatchObject({ ms: 30_000, stopped: false });
      expect(await answeredYet(waiting)).toBe(false);
      await call(more.POST, { body: filesForm([["b.md", article("visa", 2)]]), params: { id, jobId } });
      const done = await waiting;
      expect(done.body).toMatchObject({ finished: true, done_files: 2, files: [] });
      expect(timers[1].stopped).toBe(true);

      // A finished upload answers without waiting at all; a wait for an unknown one is a 404, a bad one a 422.
      expect((await call(more.GET, { method: "GET", url: "?wait=30", params: { id, jobId } })).body.finished).toBe(true);
      expect((await call(more.GET, { method: "GET", url: "?wait=5", params: { id, jobId: "nope" } })).status).toBe(404);
      for (const bad of ["61", "-1", "soon", "1.5"]) {
        expect(await call(more.GET, { method: "GET", url: `?wait=${bad}`, params: { id, jobId } })).toMatchObject({
          status: 422,
          body: { error: { message: expect.stringMatching(/wait must be a whole number of seconds from 0 to 60/) } },
        });
      }
      expect(timers).toHaveLength(2);
    } finally {
      uploadWaitTimer.start = realTimer;
    }
  }, 60_000);
});
