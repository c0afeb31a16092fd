import { describe, expect, it } from "vitest";
import { freePort } from "@/scripts/chroma-server.mjs";

describe("GET /api/health when Chroma is down", () => {
  it("answers 503 and names Chroma as what failed", async () => {
    // A port nothing listens on: the configured Chroma is unreachable.
    process.env.CHROMA_URL = `http://127.0.0.1:${await freePort()}`;
    const { GET } = await import("./route");
    const res = await GET();
    expect(res.status).toBe(503);
    const body = await res.json();
    expect(body.ok).toBe(false);
    expect(body.chroma.ok).toBe(false);
    expect(body.chroma.error).toMatch(/Chroma/);
    expect(body.embedder).toMatchObject({ ok: true });
  });
});
