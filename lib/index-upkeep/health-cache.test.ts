import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { GET } from "@/app/api/health/route";
import { HealthBanner } from "@/components/layout/health-banner";
import { embedder } from "../embeddings/configured";
import { cachedHealth, HEALTH_CACHE_MS, useHealthDeadline } from "./health";

// The banner marks itself request-time with connection(), which needs Next's request scope.
vi.mock("next/server", async (original) => ({ ...(await original<typeof import("next/server")>()), connection: async () => {} }));

// Healthy however long a busy machine's Chroma takes to answer (within CHROMA_TIMEOUT_MS): the 3 s probe deadline is not under test here.
let undoDeadline: () => void;
beforeAll(() => void (undoDeadline = useHealthDeadline(Number.POSITIVE_INFINITY)));
afterAll(() => undoDeadline());

// Only the clock is faked: the checks still talk to the real Chroma over real sockets.
beforeEach(() => vi.useFakeTimers({ toFake: ["Date"] }));
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("the health banner's check", () => {
  it("embeds once for renders within a few seconds, and checks again after that", async () => {
    const embed = vi.spyOn(embedder(), "embed");
    const render = () => HealthBanner();

    expect(await Promise.all([render(), render()])).toEqual([null, null]); // a healthy install shows no banner
    expect(embed).toHaveBeenCalledTimes(1);

    vi.setSystemTime(Date.now() + HEALTH_CACHE_MS - 1);
    await render();
    expect(embed).toHaveBeenCalledTimes(1);

    vi.setSystemTime(Date.now() + 2);
    const first = await cachedHealth();
    expect(embed).toHaveBeenCalledTimes(2);
    expect(first).toMatchObject({ ok: true, embedder: { ok: true } });
    expect(await cachedHealth()).toBe(first);
    expect(embed).toHaveBeenCalledTimes(2);
  });

  it("leaves GET /api/health checking afresh on every call of a signed-in caller (everyone, with sign-in off)", async () => {
    const embed = vi.spyOn(embedder(), "embed");
    expect((await GET()).status).toBe(200);
    expect((await GET()).status).toBe(200);
    expect(embed).toHaveBeenCalledTimes(2);
  });
});
