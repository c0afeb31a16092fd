import { describe, expect, it } from "vitest";
import { gateRequest } from "./gate";
import { PEER_HEADER, peerStamp } from "./peer";
import { ERROR_STATUS } from "../core/errors";

// Sign-in off (no ADMIN_PASSWORD): everyone who reaches the app is an editor, so the app itself
// answers only requests from this machine that came straight to it.
delete process.env.ADMIN_PASSWORD;

const request = (peer: { address: string; forwarded?: string[] } | null, headers: Record<string, string> = {}) =>
  new Request("http://127.0.0.1:3000/api/agents", {
    headers: { host: "127.0.0.1:3000", ...headers, ...(peer ? { [PEER_HEADER]: peerStamp({ address: peer.address, forwarded: peer.forwarded ?? [] }) } : {}) },
  });

const refusal = async (req: Request) => {
  const res = await gateRequest(req);
  return res && { status: res.status, ...(await res.json()).error };
};

describe("the gate with sign-in off", () => {
  it("lets a direct request from this machine through", async () => {
    expect(await gateRequest(request({ address: "127.0.0.1" }))).toBeNull();
    expect(await gateRequest(request({ address: "::1" }))).toBeNull();
  });

  it("refuses a request that came through a proxy, and says to set ADMIN_PASSWORD", async () => {
    for (const header of ["x-forwarded-for", "forwarded", "x-real-ip"]) {
      const r = await refusal(request({ address: "127.0.0.1", forwarded: [header] }, { [header]: "127.0.0.1" }));
      expect(r).toMatchObject({ status: ERROR_STATUS.sign_in_required, code: "sign_in_required" });
      expect(r!.message).toContain(header);
      expect(r!.message).toContain("ADMIN_PASSWORD");
    }
  });

  it("refuses a request from another address (next start -H 0.0.0.0), naming it", async () => {
    const r = await refusal(request({ address: "192.0.2.10" }));
    expect(r).toMatchObject({ status: 403, code: "sign_in_required" });
    expect(r!.message).toMatch(/192\.0\.2\.10.*ADMIN_PASSWORD/);
  });

  it("answers 503 to a request the server did not stamp (one that arrived while it was starting)", async () => {
    expect(await refusal(request(null))).toMatchObject({ status: ERROR_STATUS.starting, code: "starting" });
    expect(await refusal(request(null, { [PEER_HEADER]: "forged 127.0.0.1" }))).toMatchObject({ status: 503 });
  });
});
