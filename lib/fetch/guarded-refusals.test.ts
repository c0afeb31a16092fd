import http from "node:http";
import type { LookupAddress } from "node:dns";
import type { AddressInfo } from "node:net";
import { describe, expect, it, vi } from "vitest";
import { guardedFetchSite, lookupFrom, rejection } from "@/test/guarded-fetch-site";
import { FetchRefused, guardedFetch, pinnedLookup, pinnedRequestOptions, type Lookup } from "./guarded";

// What the guarded fetch refuses, before connecting or on a redirect, and that a connection goes
// to the address that was checked.

const site = guardedFetchSite();

describe("guardedFetch refuses before connecting", () => {
  it("refuses the fixture's address when it is not in allowHosts", async () => {
    for (const url of [`${site.base}/page`, `http://0x7f.1:${site.port}/page`, `http://127.1.2.3:${site.port}/page`]) {
      const err = await rejection(guardedFetch(url, { limits: site.limits({ allowHosts: [] }) }));
      expect(err, url).toBeInstanceOf(FetchRefused);
      expect(err.message).toMatch(/private, loopback or link-local address.*FETCH_ALLOW_HOSTS/);
    }
    expect(site.seen).toEqual([]);
  });

  it("matches allowHosts by name:port with the URL's effective port, a bare name only on the scheme's default port, case-insensitively", async () => {
    expect((await guardedFetch(`${site.base}/page`, { limits: site.limits({ allowHosts: [`127.0.0.1:${site.port}`] }) })).status).toBe(200);
    const otherPort = await rejection(guardedFetch(`${site.base}/page`, { limits: site.limits({ allowHosts: ["127.0.0.1:80"] }) }));
    expect(otherPort).toBeInstanceOf(FetchRefused);
    // A bare name stands for port 80 (http) or 443 (https), not for every port of the host.
    const bare = await rejection(guardedFetch(`${site.base}/page`, { limits: site.limits({ allowHosts: ["127.0.0.1"] }) }));
    expect(bare).toBeInstanceOf(FetchRefused);
    expect(bare.message).toMatch(/private, loopback or link-local address/);
    const lookup = lookupFrom({ "docs.test": ["127.0.0.1"] });
    expect(
      (
        await guardedFetch(`http://DOCS.test:${site.port}/page`, {
          limits: site.limits({ allowHosts: [`Docs.Test:${site.port}`] }),
          lookup,
        })
      ).status,
    ).toBe(200);
    expect(site.seen).toEqual(["/page", "/page"]);
  });

  it("refuses localhost and *.localhost without resolving them, unless listed", async () => {
    const lookup = lookupFrom({ localhost: ["127.0.0.1"], "app.localhost": ["127.0.0.1"] });
    for (const url of [
      `http://localhost:${site.port}/page`,
      `http://LOCALHOST.:${site.port}/page`,
      `http://app.localhost:${site.port}/page`,
    ]) {
      const err = await rejection(guardedFetch(url, { limits: site.limits(), lookup }));
      expect(err, url).toBeInstanceOf(FetchRefused);
      expect(err.message).toMatch(/FETCH_ALLOW_HOSTS/);
    }
    expect(lookup).not.toHaveBeenCalled();
    expect(site.seen).toEqual([]);

    const listed = await guardedFetch(`http://localhost:${site.port}/page`, {
      limits: site.limits({ allowHosts: [`localhost:${site.port}`] }),
      lookup,
    });
    expect(listed.status).toBe(200);
    expect(site.seen).toEqual(["/page"]);
  });

  it("refuses a redirect from the allowed fixture to localhost, and /secret is never asked for", async () => {
    const lookup = lookupFrom({ localhost: ["127.0.0.1"] });
    const err = await rejection(guardedFetch(`${site.base}/to-localhost`, { limits: site.limits(), lookup }));
    expect(err).toBeInstanceOf(FetchRefused);
    expect(err.message).toContain(`"http://localhost:${site.port}/secret"`);
    expect(err.message).toContain(`redirected from "${site.base}/to-localhost"`);
    expect((err as FetchRefused).url).toBe(`${site.base}/to-localhost`);
    expect(lookup).not.toHaveBeenCalled();
    expect(site.seen).toEqual(["/to-localhost"]);
  });

  it("refuses a redirect to a name that resolves to a private address, and to another scheme", async () => {
    const lookup = lookupFrom({ "intranet.test": ["127.0.0.1"] });
    const private_ = await rejection(guardedFetch(`${site.base}/to-intranet`, { limits: site.limits(), lookup }));
    expect(private_).toBeInstanceOf(FetchRefused);
    expect(private_.message).toMatch(/intranet\.test resolves to a private, loopback or link-local address\. FETCH_ALLOW_HOSTS/);
    const ftp = await rejection(guardedFetch(`${site.base}/to-ftp`, { limits: site.limits() }));
    expect(ftp).toBeInstanceOf(FetchRefused);
    expect(ftp.message).toMatch(/is not an http\(s\) URL/);
    expect(site.seen).toEqual(["/to-intranet", "/to-ftp"]);
  });

  it("refuses a name resolving to private addresses, even one among public ones, without connecting", async () => {
    // The loopback answer comes first: a fetcher that connected anyway would reach the fixture, not the world.
    const lookup = lookupFrom({ "intranet.test": ["127.0.0.1"], "mixed.test": ["127.0.0.1", "93.184.215.14"] });
    for (const host of ["intranet.test", "mixed.test"]) {
      const err = await rejection(guardedFetch(`http://${host}:${site.port}/secret`, { limits: site.limits(), lookup }));
      expect(err, host).toBeInstanceOf(FetchRefused);
      expect(err.message).toMatch(
        new RegExp(
          `${host.replace(".", "\\.")} resolves to a private, loopback or link-local address\\. FETCH_ALLOW_HOSTS lists hosts allowed anyway`,
        ),
      );
    }
    expect(lookup).toHaveBeenCalledTimes(2);
    expect(site.seen).toEqual([]);
  });

  it("refuses URLs that are not http(s), not URLs, or carry a user name or password", async () => {
    const cases: [string, RegExp][] = [
      ["ftp://x", /^"ftp:\/\/x" is not an http\(s\) URL\.$/],
      ["file:///etc/passwd", /is not an http\(s\) URL/],
      ["not a url", /is not a valid URL/],
      [`http://user:pw@127.0.0.1:${site.port}/page`, /has a user name or password/],
      [`http://user@127.0.0.1:${site.port}/page`, /has a user name or password/],
    ];
    for (const [url, message] of cases) {
      const err = await rejection(guardedFetch(url, { limits: site.limits() }));
      expect(err, url).toBeInstanceOf(FetchRefused);
      expect(err.message).toMatch(message);
      // The password is never repeated.
      expect(err.message).not.toContain("pw");
      expect((err as FetchRefused).url).not.toContain("pw");
    }
    expect(site.seen).toEqual([]);
  });
});

describe("an allow-listed host is reached only by callers configured with its site", () => {
  // wiki.test is the internal wiki of one agent's source, partner.test another agent's partner site; both listed.
  const lookup = () => lookupFrom({ "wiki.test": ["127.0.0.1"], "partner.test": ["127.0.0.1"] });
  const both = () => site.limits({ allowHosts: [`wiki.test:${site.port}`, `partner.test:${site.port}`] });

  it("fetches a listed host for a caller whose scope names its site, and redirects within that site", async () => {
    const page = await guardedFetch(`http://wiki.test:${site.port}/to-own-page`, {
      limits: both(),
      lookup: lookup(),
      scope: [`http://wiki.test:${site.port}/sitemap.xml`],
    });
    expect(page).toMatchObject({ status: 200, url: `http://wiki.test:${site.port}/page` });
    expect(site.seen).toEqual(["/to-own-page", "/page"]);
  });

  it("refuses a listed host to a caller configured with another site, naming the rule, before connecting", async () => {
    const err = await rejection(
      guardedFetch(`http://wiki.test:${site.port}/secret`, {
        limits: both(),
        lookup: lookup(),
        scope: [`http://partner.test:${site.port}/sitemap.xml`],
      }),
    );
    expect(err).toBeInstanceOf(FetchRefused);
    expect(err.message).toMatch(new RegExp(`admits wiki\\.test:${site.port} only for a source whose own sitemap or page URLs are on it`));
    expect(site.seen).toEqual([]);
  });

  it("refuses a redirect from one listed site to another, even when the caller names both", async () => {
    const scope = [`http://partner.test:${site.port}/a.html`, `http://wiki.test:${site.port}/b.html`];
    const err = await rejection(guardedFetch(`http://partner.test:${site.port}/to-wiki`, { limits: both(), lookup: lookup(), scope }));
    expect(err).toBeInstanceOf(FetchRefused);
    expect(err.message).toContain(`redirected from "http://partner.test:${site.port}/to-wiki"`);
    expect(site.seen).toEqual(["/to-wiki"]);
  });

  it("refuses a redirect from a public site into a listed one", async () => {
    // public.test stands for a public host: a second server on 127.0.0.2, whose address counts as public here.
    const other = http.createServer(site.route);
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.2", resolve));
    try {
      const otherPort = (other.address() as AddressInfo).port;
      const err = await rejection(
        guardedFetch(`http://public.test:${otherPort}/to-wiki`, {
          limits: both(),
          lookup: lookupFrom({ "public.test": ["127.0.0.2"], "wiki.test": ["127.0.0.1"] }),
          isPublic: (address) => address === "127.0.0.2",
          scope: [`http://public.test:${otherPort}/`, `http://wiki.test:${site.port}/`],
        }),
      );
      expect(err).toBeInstanceOf(FetchRefused);
      expect(err.message).toMatch(/wiki\.test resolves to a private, loopback or link-local address\. FETCH_ALLOW_HOSTS admits/);
      expect(site.seen).toEqual(["/to-wiki"]);
    } finally {
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    }
  });
});

describe("refusals name the rule, not the address", () => {
  it("never repeats what a name resolved to", async () => {
    const lookup = lookupFrom({ "intranet.test": ["10.1.2.3", "fd00::7"] });
    const direct = await rejection(guardedFetch(`http://intranet.test:${site.port}/secret`, { limits: site.limits(), lookup }));
    const redirected = await rejection(guardedFetch(`${site.base}/to-intranet`, { limits: site.limits(), lookup }));
    for (const err of [direct, redirected]) {
      expect(err).toBeInstanceOf(FetchRefused);
      expect(err.message).toMatch(/intranet\.test resolves to a private, loopback or link-local address/);
      expect(err.message).not.toContain("10.1.2.3");
      expect(err.message).not.toContain("fd00");
    }
  });
});

describe("the connection goes to the address that was checked", () => {
  it("connects an allowed name to the looked-up address, asking once: a changed second answer is never used", async () => {
    let calls = 0;
    // 127.0.0.2 is loopback too, but nothing listens there: were it asked again, the fetch would fail.
    const lookup: Lookup = async () => [{ address: calls++ === 0 ? "127.0.0.1" : "127.0.0.2", family: 4 }];
    const page = await guardedFetch(`http://docs.test:${site.port}/page`, {
      limits: site.limits({ allowHosts: [`docs.test:${site.port}`] }),
      lookup,
    });
    expect(page.status).toBe(200);
    expect(calls).toBe(1);
    expect(site.seen).toEqual(["/page"]);
  });

  it("builds request options pinned to the checked addresses, TLS verifying the URL's name", () => {
    const checked = [
      { address: "192.0.2.10", family: 4 as const },
      { address: "2001:db8::10", family: 6 as const },
    ];
    const options = pinnedRequestOptions(
      { url: new URL("https://docs.example.test:8443/a/b?c=1"), addresses: checked },
      { "user-agent": "KB-Inspector-sync/1" },
    );
    expect(options).toMatchObject({
      protocol: "https:",
      hostname: "docs.example.test",
      port: "8443",
      path: "/a/b?c=1",
      method: "GET",
      agent: false,
      servername: "docs.example.test",
      headers: { "user-agent": "KB-Inspector-sync/1", host: "docs.example.test:8443" },
    });

    // Called the two ways node's net module calls a lookup; it answers without DNS.
    const all = vi.fn();
    options.lookup!("docs.example.test", { all: true }, all);
    expect(all).toHaveBeenCalledWith(null, checked);
    const one = vi.fn();
    options.lookup!("docs.example.test", {}, one);
    expect(one).toHaveBeenCalledWith(null, "192.0.2.10", 4);
  });

  it("connects an IP literal as it is: no lookup, no SNI", () => {
    const options = pinnedRequestOptions({ url: new URL("https://[2001:db8::1111]/x"), addresses: null }, {});
    expect(options.lookup).toBeUndefined();
    expect(options.servername).toBeUndefined();
    expect(options).toMatchObject({ hostname: "2001:db8::1111", port: 443, headers: { host: "[2001:db8::1111]" } });
  });

  it("pinnedLookup ignores the name it is asked for", () => {
    const cb = vi.fn<(err: unknown, address: string | LookupAddress[], family?: number) => void>();
    pinnedLookup([{ address: "127.0.0.1", family: 4 }])("rebound.test", { family: 6 }, cb);
    expect(cb).toHaveBeenCalledWith(null, "127.0.0.1", 4);
  });
});
