import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientAddress, installPeerStamp, isLoopbackAddress, PEER_HEADER, peerOf, peerStamp } from "./peer";

/** Headers as a route handler gets them from a request stamped for this peer. */
const stamped = (address: string, extra: Record<string, string> = {}, forwarded: string[] = []) =>
  new Headers({ ...extra, [PEER_HEADER]: peerStamp({ address, forwarded }) });

describe("the peer stamp on a real HTTP server", () => {
  let server: http.Server;
  let port = 0;
  const seen: Headers[] = [];
  beforeAll(async () => {
    installPeerStamp();
    server = http.createServer((req, res) => {
      const h = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") h.set(k, v);
      seen.push(h);
      res.end("ok");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const get = (headers: Record<string, string>, localAddress?: string) =>
    new Promise<Headers>((resolve, reject) => {
      http
        .get({ host: "127.0.0.1", port, path: "/", headers, localAddress }, (res) => {
          res.resume();
          res.on("end", () => resolve(seen.at(-1)!));
        })
        .on("error", reject);
    });

  it("records the socket's address, whatever the client claims, and the forwarding headers it sent", async () => {
    const plain = peerOf(await get({}))!;
    expect(plain).toEqual({ address: "127.0.0.1", forwarded: [] });

    const claims = await get({ "X-Forwarded-For": "203.0.113.9", "X-Real-IP": "203.0.113.9", [PEER_HEADER]: "forged 203.0.113.9" });
    expect(peerOf(claims)).toEqual({ address: "127.0.0.1", forwarded: ["x-forwarded-for", "x-real-ip"] });
    expect(peerOf(await get({ Forwarded: "for=203.0.113.9" }))!.forwarded).toEqual(["forwarded"]);
  });

  it("tells two loopback clients apart by their own addresses, not by the header they send", async () => {
    const a = await get({ "X-Forwarded-For": "10.1.1.1" }, "127.0.0.2");
    const b = await get({ "X-Forwarded-For": "10.1.1.1" }, "127.0.0.3");
    expect(clientAddress(a, false)).toBe("127.0.0.2");
    expect(clientAddress(b, false)).toBe("127.0.0.3");
    // Rotating the header changes nothing.
    expect(clientAddress(await get({ "X-Forwarded-For": "10.9.9.9" }, "127.0.0.2"), false)).toBe("127.0.0.2");
  });
});

describe("clientAddress and peerOf", () => {
  it("reads nothing from a stamp this process did not make", () => {
    expect(peerOf(new Headers({ [PEER_HEADER]: "0123abcd 127.0.0.1" }))).toBeNull();
    expect(peerOf(new Headers())).toBeNull();
    expect(clientAddress(new Headers({ "x-forwarded-for": "198.51.100.7" }), false)).toBe("unknown");
  });

  it("takes the last X-Forwarded-For entry only with TRUST_PROXY", () => {
    const h = stamped("10.0.0.2", { "x-forwarded-for": "198.51.100.7, 203.0.113.4" }, ["x-forwarded-for"]);
    expect(clientAddress(h, false)).toBe("10.0.0.2");
    expect(clientAddress(h, true)).toBe("203.0.113.4");
    expect(clientAddress(stamped("10.0.0.2"), true)).toBe("10.0.0.2");
  });

  it("counts an IPv6 client by its /56 (a holder of a /56 or /48 cannot spread over /64s) and writes IPv4-mapped addresses as IPv4", () => {
    const bucket = "2001:db8:1:0::/56";
    for (const a of ["2001:db8:1:2:aaaa::1", "2001:db8:1:2:bbbb:cccc:dddd:eeee", "2001:db8:1:3::1", "2001:db8:1:ff::1", "2001:DB8:1::1"]) {
      expect(clientAddress(stamped(a), false), a).toBe(bucket);
    }
    expect(clientAddress(stamped("2001:db8:1:100::1"), false)).toBe("2001:db8:1:100::/56");
    expect(clientAddress(stamped("2001:db8:1:abff::1"), false)).toBe("2001:db8:1:ab00::/56");
    expect(clientAddress(stamped("2001:db8:2:2::1"), false)).toBe("2001:db8:2:0::/56");
    // Behind a trusted proxy, the address it wrote is bucketed the same way.
    expect(clientAddress(stamped("10.0.0.2", { "x-forwarded-for": "2001:db8:1:42::9" }, ["x-forwarded-for"]), true)).toBe(bucket);
    expect(clientAddress(stamped("::ffff:192.0.2.1"), false)).toBe("192.0.2.1");
  });

  it("knows the loopback range", () => {
    for (const a of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"]) expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ["10.0.0.1", "192.168.1.2", "128.0.0.1", "::", "fe80::1", "2001:db8::1", ""])
      expect(isLoopbackAddress(a), a).toBe(false);
  });
});
