import { describe, expect, it } from "vitest";
import { ERROR_STATUS } from "../core/errors";
import { gateRequest } from "./gate";
import { PEER_HEADER, peerStamp } from "./peer";

// Sign-in off (no ADMIN_PASSWORD): everyone who reaches the app is an editor, so the app itself
// answers only requests from this machine that came straight to it.
delete process.env.ADMIN_PASSWORD;
// A name listed for a proxy: with sign-in off it is refused all the same.
process.env.ALLOWED_HOSTS = "kb.example.com";

const request = (peer: { address: string; forwarded?: string[] } | null, headers: Record<string, string> = {}) =>
  new Request("http://127.0.0.1:3000/api/agents", {
    headers: {
      host: "127.0.0.1:3000",
      ...headers,
      ...(peer ? { [PEER_HEADER]: peerStamp({ address: peer.address, forwarded: peer.forwarded ?? [] }) } : {}),
    },
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

  it("refuses a request addressed to a name other than this machine's, as a proxy that adds no header passes it on", async () => {
    const local = { address: "127.0.0.1" };
    for (const [headers, named] of [
      [{ host: "kb.example.com" }, "Host"], // HAProxy's default, nginx with `proxy_set_header Host $host`
      [{ host: "kb.example.com:443" }, "Host"],
      [{ referer: "https://kb.example.com/agents/1" }, "Referer"], // nginx's default Host, then a click in the app
      [{ referer: "https://kb.example.com/agents/1", "sec-fetch-site": "same-origin" }, "Referer"],
      [{ origin: "https://kb.example.com" }, "Origin"],
      [{ referer: "http://192.0.2.10:3000/" }, "Referer"],
    ] as const) {
      const r = await refusal(request(local, headers));
      expect(r, JSON.stringify(headers)).toMatchObject({ status: 403, code: "sign_in_required" });
      expect(r!.message).toContain(`its ${named} header`);
      expect(r!.message).toContain("ADMIN_PASSWORD");
      expect(r!.message).toContain("ALLOWED_HOSTS");
    }
  });

  it("answers this machine's names, and a link from another site whose Referer names that site", async () => {
    const local = { address: "127.0.0.1" };
    for (const host of ["localhost:3000", "app.localhost:3000", "127.0.0.2:3000", "[::1]:3000"]) {
      expect(await gateRequest(request(local, { host, referer: `http://${host}/agents` })), host).toBeNull();
    }
    expect(await gateRequest(request(local, { referer: "https://wiki.example.com/runbook", "sec-fetch-site": "cross-site" }))).toBeNull();
    expect(await gateRequest(request(local, { origin: "null" }))).toBeNull();
  });

  it("says an unknown Host needs ADMIN_PASSWORD as well as ALLOWED_HOSTS", async () => {
    const r = await refusal(request({ address: "127.0.0.1" }, { host: "other.example.com" }));
    expect(r).toMatchObject({ status: 403, code: "forbidden_host" });
    expect(r!.message).toMatch(/ADMIN_PASSWORD.*ALLOWED_HOSTS/);
  });

  it("answers 503 to a request the server did not stamp (one that arrived while it was starting)", async () => {
    expect(await refusal(request(null))).toMatchObject({ status: ERROR_STATUS.starting, code: "starting" });
    expect(await refusal(request(null, { [PEER_HEADER]: "forged 127.0.0.1" }))).toMatchObject({ status: 503 });
  });
});
