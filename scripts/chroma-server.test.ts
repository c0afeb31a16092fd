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
      await expect.poll(() => chroma.pid() !== firstPid, { timeout: 60_000 }).toBe(true);
      await waitForHeartbeat(chroma.url, 30_000);
      expect(logs.some((l) => l.includes("restarting Chroma"))).toBe(true);

      const list = await (await fetch(`${chroma.url}/api/v2/tenants/default_tenant/databases/default_database/collections`)).json();
      expect(list.map((c: { name: string }) => c.name)).toContain("kept");
    } finally {
      await chroma.stop();
    }
    await expect(fetch(`${chroma.url}/api/v2/heartbeat`)).rejects.toThrow();

    // The restart after the kill is counted for the app's index check; the clean stop is not.
    const count = () => fs.readFileSync(path.join(dir, "unclean-restarts"), "utf8").trim();
    expect(count()).toBe("1");
    expect(fs.existsSync(path.join(dir, "running"))).toBe(false);
    const again = await startChroma({ dataDir: dir, restart: false });
    // Killed with the whole app (a power cut): the next start over this data counts it.
    process.kill(again.pid()!, "SIGKILL");
    await expect
      .poll(
        () =>
          fetch(`${again.url}/api/v2/heartbeat`).then(
            () => true,
            () => false,
          ),
        { timeout: 60_000 },
      )
      .toBe(false);
    await again.stop();
    expect(count()).toBe("1");
    const third = await startChroma({ dataDir: dir, restart: false });
    await third.stop();
    expect(count()).toBe("2");
    fs.rmSync(dir, { recursive: true, force: true });
  }, 90_000);
});
