import { beforeAll, describe, expect, it } from "vitest";
import * as audit from "../audit/route";
import * as repair from "../audit/repair/route";
import { call } from "@/test/http";
import { ARTICLES, ingest, newAgent } from "@/test/helpers";

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
      expect(second.body.error).toMatchObject({ code: "conflict", message: expect.stringMatching(/^A reachability audit .* is already running \(started \d{4}-/) });
      // The audit without it is not held up.
      expect(quick.status).toBe(200);
      expect(quick.body.reachability_checked).toBeNull();
    }
    expect((await reachability()).status).toBe(200);
  });

  it("counts the repair that runs it as one too", async () => {
    const [audited, repaired] = await Promise.all([reachability(), repairReachability()]);
    expect(audited.status).toBe(200);
    expect(repaired.status).toBe(409);
    const [repairedFirst, auditedAfter] = await Promise.all([repairReachability(), reachability()]);
    expect(repairedFirst.status).toBe(200);
    expect(auditedAfter.status).toBe(409);
  });
});
