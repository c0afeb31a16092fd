import { beforeAll, describe, expect, it, vi } from "vitest";
import { call } from "@/test/http";
import { ARTICLES, ingest, newAgent } from "@/test/helpers";
import { holder, oneAudit, oneReachabilityAudit } from "@/lib/core/one-at-a-time";
import * as repair from "./repair/route";
import * as audit from "./route";

beforeAll(async () => {
  const agent = newAgent("reachability");
  for (const [name, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${name}.txt`, text);
});

const reachability = () => call(audit.GET, { method: "GET", url: "?reachability=1" });
const plain = () => call(audit.GET, { method: "GET" });
const repairReachability = () => call(repair.POST, { url: "?reachability=1" });

describe("the reachability audit (every chunk queried with its own vector)", () => {
  it("runs one at a time across the app: a second request sent meanwhile is a 409 naming it, over several trials", async () => {
    for (let trial = 0; trial < 4; trial++) {
      const [first, second, quick] = await Promise.all([reachability(), reachability(), plain()]);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.body.reachability_checked).toBeGreaterThan(0);
      expect(second.status).toBe(409);
      expect(second.body.error).toMatchObject({
        code: "conflict",
        message: expect.stringMatching(
          /^A reachability audit .* is already running \(started \d{4}-.*, \d+ s ago\)\. One runs at a time; try again when it finishes\.$/,
        ),
      });
      // The audit without it is not held up.
      expect(quick.status).toBe(200);
      expect(quick.body.reachability_checked).toBeNull();
    }
    expect((await reachability()).status).toBe(200);
  });

  it("lets a repair wait for a running audit instead of refusing it, and refuses audits while it waits", async () => {
    // A viewer's reachability audit holds the key until the test lets it finish.
    let finish!: () => void;
    const running = oneReachabilityAudit(() => new Promise<void>((resolve) => (finish = resolve)));
    const repaired = repairReachability();
    await vi.waitFor(() => expect(holder("reachability-audit")?.next).toBe("A repair with reachability"), {
      timeout: 60_000,
      interval: 20,
    });
    // The viewer's loop: every audit meanwhile is refused, naming the one running and the repair that waits.
    for (let i = 0; i < 3; i++) {
      const looped = await reachability();
      expect(looped.status).toBe(409);
      expect(looped.body.error.message).toMatch(
        /^A reachability audit .* is already running \(started .*\), and a repair with reachability waits to run next\./,
      );
    }
    // A second repair does not queue behind the first.
    expect((await repairReachability()).status).toBe(409);
    finish();
    await running;
    const done = await repaired;
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.after.reachability_checked).toBeGreaterThan(0);
    expect(holder("reachability-audit")).toBeUndefined();
    expect((await reachability()).status).toBe(200);
  });

  it("refuses an audit while a repair runs, naming it", async () => {
    const [repairedFirst, auditedAfter] = await Promise.all([repairReachability(), reachability()]);
    expect(repairedFirst.status).toBe(200);
    expect(auditedAfter.status).toBe(409);
    expect(auditedAfter.body.error.message).toMatch(/^A repair with reachability is already running/);
  });
});

describe("the audit without reachability (every vector listed)", () => {
  it("runs one at a time too: a request meanwhile is a 409 naming the one running, then it runs again", async () => {
    let finish!: () => void;
    const running = oneAudit(() => new Promise<void>((resolve) => (finish = resolve)));
    const refused = await plain();
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: "conflict",
      message: expect.stringMatching(/^An audit \(every vector listed\) is already running \(started .*, \d+ s ago\)\. One runs at a time/),
    });
    finish();
    await running;
    expect((await plain()).status).toBe(200);
  });
});
