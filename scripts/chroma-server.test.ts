import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startChroma, waitForHeartbeat } from "./chroma-server.mjs";

describe("the embedded Chroma supervisor", () => {
  it("starts Chroma, restarts it when it dies, keeps the data, and stops it", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kb-supervisor-"));
    const logs: string[] = [];
    const chroma = await startChroma({ dataDir: dir, log: (m) => logs.push(m) });
    try {
      const created = await fetch(`${chroma.url}/api/v2/tenants/default_tenant/databases/default_database/collections`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "kept" }),
      });
      expect(created.ok).toBe(true);

      const firstPid = chroma.pid()!;
      process.kill(firstPid, "SIGKILL");
      await expect.poll(() => chroma.pid() !== firstPid, { timeout: 15_000 }).toBe(true);
      await waitForHeartbeat(chroma.url, 30_000);
      expect(logs.some((l) => l.includes("restarting Chroma"))).toBe(true);

      const list = await (await fetch(`${chroma.url}/api/v2/tenants/default_tenant/databases/default_database/collections`)).json();
      expect(list.map((c: { name: string }) => c.name)).toContain("kept");
    } finally {
      await chroma.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
    await expect(fetch(`${chroma.url}/api/v2/heartbeat`)).rejects.toThrow();
  }, 90_000);
});
