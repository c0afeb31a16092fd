import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";

// Sign-in on, so a request without a session or token is anonymous; read once by env().
vi.hoisted(() => {
  process.env.ADMIN_PASSWORD = "health-admin-password";
});

// The request scope Next gives a route handler: no session cookie, and the Authorization header
// the test sets (none: anonymous).
const request = vi.hoisted(() => ({ authorization: null as string | null }));
vi.mock("next/headers", () => ({
  cookies: async () => ({ get: () => undefined }),
  headers: async () => new Headers(request.authorization ? { authorization: request.authorization } : {}),
}));

import { createToken } from "@/lib/db/api-tokens";
import { embedder } from "@/lib/embeddings/configured";
import { HEALTH_CACHE_MS, useHealthDeadline } from "@/lib/index-upkeep/health";
import { GET } from "./route";

// Healthy however long a busy machine's Chroma takes to answer (within CHROMA_TIMEOUT_MS): the 3 s probe deadline is not under test here.
let undoDeadline: () => void;
beforeAll(() => void (undoDeadline = useHealthDeadline(Number.POSITIVE_INFINITY)));
afterAll(() => undoDeadline());

// Only the clock is faked: the checks still embed and query the real Chroma over real sockets.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  request.authorization = null;
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const probe = async () => {
  const res = await GET();
  return { status: res.status, body: await res.json() };
};

describe("GET /api/health for anonymous callers", () => {
  it("answers from at most one full check per cache period, however many calls come", async () => {
    const embed = vi.spyOn(embedder(), "embed");
    const first = await Promise.all(Array.from({ length: 20 }, probe));
    for (let i = 0; i < 20; i++) first.push(await probe());
    expect(first.every((r) => r.status === 200 && JSON.stringify(r.body) === '{"ok":true}')).toBe(true);
    expect(embed).toHaveBeenCalledTimes(1);

    vi.setSystemTime(Date.now() + HEALTH_CACHE_MS - 1);
    await Promise.all(Array.from({ length: 20 }, probe));
    expect(embed).toHaveBeenCalledTimes(1);

    // The period is over: the next caller checks again, and the others share that check.
    vi.setSystemTime(Date.now() + 2);
    const again = await Promise.all(Array.from({ length: 20 }, probe));
    expect(again.every((r) => r.status === 200)).toBe(true);
    expect(embed).toHaveBeenCalledTimes(2);
    for (let i = 0; i < 20; i++) await probe();
    expect(embed).toHaveBeenCalledTimes(2);
  });

  it("leaves a signed-in caller a fresh check, with the details", async () => {
    request.authorization = `Bearer ${createToken("health viewer", "viewer").token}`;
    const embed = vi.spyOn(embedder(), "embed");
    const [a, b] = [await probe(), await probe()];
    expect(embed).toHaveBeenCalledTimes(2);
    for (const r of [a, b]) expect(r).toMatchObject({ status: 200, body: { ok: true, chroma: { ok: true }, embedder: { ok: true } } });
  });
});
