import { beforeAll, describe, expect, it } from "vitest";
import * as search from "@/pages/api/agents/[id]/documents/search";
import { call, LOCAL_PEER } from "@/test/http";
import { ARTICLES, ingest, newAgent } from "@/test/helpers";
import { holder, oneGapsList } from "@/lib/core/one-at-a-time";
import type { Agent } from "@/lib/db/agents";
import * as exportRoute from "./agents/[id]/export/route";
import * as gaps from "./agents/[id]/gaps/route";

// Downloads a viewer can start that read a whole agent: each kind runs one at a time across the app.
let first: Agent;
let second: Agent;
beforeAll(async () => {
  first = newAgent("Heavy reads");
  second = newAgent("Heavy reads too");
  for (const agent of [first, second]) {
    for (const [name, text] of Object.entries(ARTICLES)) await ingest(agent.id, `${name}.md`, text);
    expect(
      (await call(search.POST, { json: { query: "do you sell gift cards", top_k: 3 }, params: { id: String(agent.id) } })).status,
    ).toBe(200);
  }
});

const exportOf = (agent: Agent) =>
  exportRoute.GET(new Request("http://localhost/test", { headers: LOCAL_PEER }), { params: Promise.resolve({ id: String(agent.id) }) });
const gapsOf = (agent: Agent) => call(gaps.GET, { method: "GET", params: { id: String(agent.id) }, url: "?beyond=0.05" });

describe("agent exports", () => {
  it("run one at a time, held until the file is read: one meanwhile is a 409 naming it, of any agent", async () => {
    const running = await exportOf(first);
    expect(running.status).toBe(200);
    for (const agent of [first, second]) {
      const refused = await exportOf(agent);
      expect(refused.status).toBe(409);
      expect((await refused.json()).error).toEqual({
        code: "conflict",
        message: expect.stringMatching(
          new RegExp(
            `^An export of agent ${first.id} is already running \\(started .*, \\d+ s ago\\)\\. One runs at a time; try again when it finishes\\.$`,
          ),
        ),
      });
    }
    const text = await running.text();
    expect(text.trim().split("\n").at(-1)).toContain('"type":"end"');
    expect(holder("export")).toBeUndefined();
    const next = await exportOf(second);
    expect(next.status).toBe(200);
    // A client that goes away frees it too.
    await next.body!.cancel();
    expect(holder("export")).toBeUndefined();
    const after = await exportOf(first);
    expect(after.status).toBe(200);
    await after.text();
  });
});

describe("gaps lists", () => {
  it("run one at a time: a list asked for meanwhile is a 409 naming the one running, then it runs", async () => {
    let finish!: () => void;
    const running = oneGapsList(second.id, () => new Promise<void>((resolve) => (finish = resolve)));
    for (const agent of [first, second]) {
      const refused = await gapsOf(agent);
      expect(refused.status).toBe(409);
      expect(refused.body.error.message).toMatch(
        new RegExp(`^A list of agent ${second.id}'s gaps \\(each asked again\\) is already running \\(started .*, \\d+ s ago\\)\\.`),
      );
    }
    finish();
    await running;
    const listed = await gapsOf(first);
    expect(listed.status).toBe(200);
    expect(listed.body.gaps.map((g: { text: string }) => g.text)).toEqual(["do you sell gift cards"]);
  });

  it("answers requests sent together with the list or a 409, never both running", async () => {
    const answers = await Promise.all([gapsOf(first), gapsOf(second), gapsOf(first)]);
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0);
    for (const a of answers) if (a.status !== 200) expect(a).toMatchObject({ status: 409, body: { error: { code: "conflict" } } });
    expect(holder("gaps")).toBeUndefined();
  });
});
