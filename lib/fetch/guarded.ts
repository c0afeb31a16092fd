import "server-only";
// Fetches user-supplied URLs (sitemaps, article pages) without letting them reach the server's
// own network: every hop is checked before it connects, and connects to the address checked.
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";
import type { Duplex } from "node:stream";
import zlib from "node:zlib";
import { env } from "../env.mjs";

export interface FetchLimits {
  /** Most bytes of the decoded body. */
  maxBytes: number;
  /** Bounds the whole fetch: lookups, every redirect, the body. */
  timeoutMs: number;
  maxRedirects: number;
  /** Lowercased `name` or `name:port`: fetched whatever address they resolve to. */
  allowHosts: string[];
}

export interface FetchedPage {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  /** As received (lower-case names); content-encoding and content-length describe the wire, not `body`. */
  headers: Record<string, string>;
  /** Decoded: gzip, deflate and br undone. */
  body: Buffer;
}

/** Refused by policy: nothing was connected. `url` is the URL asked for, without credentials. */
export class FetchRefused extends Error {
  constructor(
    public readonly url: string,
    message: string,
  ) {
    super(message);
    this.name = "FetchRefused";
  }
}

/** Tried and failed: timeout, too large, network error, too many redirects, a bad response. */
export class FetchFailed extends Error {
  constructor(
    public readonly url: string,
    message: string,
  ) {
    super(message);
    this.name = "FetchFailed";
  }
}

export type Lookup = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;
type Address = { address: string; family: 4 | 6 };

const USER_AGENT = "KB-Inspector-sync/1";
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
// Set by the fetcher: a caller's value would break decoding or framing, or point the request elsewhere.
const OWN_HEADERS = new Set(["host", "accept-encoding", "content-length", "transfer-encoding", "connection"]);
// Credentials meant for one origin are not handed to another a redirect names.
const ORIGIN_HEADERS = new Set(["authorization", "cookie", "proxy-authorization"]);

// Not reachable from the public internet, or not unicast: this host, its networks, documentation ranges.
const notPublic = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  notPublic.addSubnet(net, prefix, "ipv4");
}
notPublic.addAddress("::", "ipv6");
notPublic.addAddress("::1", "ipv6");
for (const [net, prefix] of [
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["2001:db8::", 32],
  ["64:ff9b::", 96],
  // Deprecated forms that can carry a private IPv4 address or site: IPv4-compatible, 6to4, site-local.
  ["::", 96],
  ["2002::", 16],
  ["fec0::", 10],
] as const) {
  notPublic.addSubnet(net, prefix, "ipv6");
}

/** The IPv4 address inside an IPv4-mapped IPv6 one (::ffff:a.b.c.d, any spelling); null otherwise. */
function mappedIpv4(ipv6: string): string | null {
  // The URL parser writes every IPv6 address one canonical way: ::ffff:7f00:1 for ::ffff:127.0.0.1.
  const m = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(new URL(`http://[${ipv6}]/`).hostname);
  if (!m) return null;
  const [hi, lo] = [parseInt(m[1], 16), parseInt(m[2], 16)];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** True only for an IP address the public internet routes to; false for private, loopback, link-local, reserved, and anything not an IP. */
export function isPublicAddress(address: string): boolean {
  // A zone (fe80::1%eth0) would make BlockList miss the address it qualifies.
  const bare = address.trim().replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 4) return !notPublic.check(bare, "ipv4");
  if (family !== 6) return false;
  const v4 = mappedIpv4(bare);
  if (v4 !== null) return isPublicAddress(v4);
  return !notPublic.check(bare, "ipv6");
}

const list = (value: string) =>
  value
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

/** The limits from FETCH_ALLOW_HOSTS, FETCH_MAX_PAGE_BYTES, FETCH_TIMEOUT_MS and FETCH_MAX_REDIRECTS. */
export function fetchLimits(): FetchLimits {
  const e = env();
  return {
    maxBytes: e.FETCH_MAX_PAGE_BYTES,
    timeoutMs: e.FETCH_TIMEOUT_MS,
    maxRedirects: e.FETCH_MAX_REDIRECTS,
    allowHosts: list(e.FETCH_ALLOW_HOSTS),
  };
}

const defaultLookup: Lookup = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** A URL cleared to be fetched, and the addresses it may connect to (null: the host is an IP literal). */
export interface CheckedTarget {
  url: URL;
  addresses: Address[] | null;
}

/** The URL as shown in messages and errors: its user name and password are never repeated. */
function shown(url: URL): string {
  if (!url.username && !url.password) return url.href;
  const copy = new URL(url.href);
  copy.username = "";
  copy.password = "";
  return copy.href;
}

const withoutDot = (name: string) => name.replace(/\.$/, "");

function allowListed(url: URL, allowHosts: string[]): boolean {
  const hostname = withoutDot(url.hostname);
  const bare = hostname.replace(/^\[(.*)\]$/, "$1");
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  const names = new Set([hostname, bare, `${hostname}:${port}`]);
  return allowHosts.some((entry) => names.has(withoutDot(entry)));
}

/** Rejects with signal's reason once it aborts: a DNS lookup cannot be cancelled, only abandoned. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * Checks one URL (the first or a redirect's) against the policy; throws FetchRefused naming what
 * to change. `refuse` and `fail` build the errors so they carry the URL the caller asked for.
 */
async function checkTarget(
  raw: string,
  base: URL | undefined,
  allowHosts: string[],
  lookup: Lookup,
  signal: AbortSignal,
  refuse: (message: string) => FetchRefused,
  fail: (message: string, at?: URL) => FetchFailed,
): Promise<CheckedTarget> {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw base ? fail(`it redirected to "${raw}", which is not a valid URL`) : refuse(`"${raw}" is not a valid URL.`);
  }
  const via = base ? ` (redirected from "${shown(base)}")` : "";
  // As the user typed it, unless that would repeat a password.
  const label = base || url.username || url.password ? shown(url) : raw;
  if (url.protocol !== "http:" && url.protocol !== "https:") throw refuse(`"${label}" is not an http(s) URL${via}.`);
  if (url.username || url.password) {
    throw refuse(`"${label}" has a user name or password in it${via}; pages are fetched without credentials, so remove them.`);
  }
  const hint = "FETCH_ALLOW_HOSTS lists hosts allowed anyway.";
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const literal = isIP(hostname) !== 0;
  const resolve = async () => {
    try {
      const found = await untilAborted(lookup(hostname), signal);
      if (found.length === 0) throw Object.assign(new Error("no addresses"), { code: "ENOTFOUND" });
      return found;
    } catch (err) {
      if (signal.aborted) throw err;
      const why = describeCode(err);
      throw fail(why === "host not found" ? `${hostname} was not found` : `looking up ${hostname} failed: ${why}`, url);
    }
  };

  if (allowListed(url, allowHosts)) return { url, addresses: literal ? null : await resolve() };
  const name = withoutDot(hostname);
  if (name === "localhost" || name.endsWith(".localhost")) {
    throw refuse(`"${label}" was not fetched${via}: ${name} is this server itself. ${hint}`);
  }
  if (literal) {
    if (!isPublicAddress(hostname)) {
      throw refuse(`"${label}" was not fetched${via}: ${hostname} is a private, loopback or link-local address. ${hint}`);
    }
    return { url, addresses: null };
  }
  const addresses = await resolve();
  const inside = addresses.filter((a) => !isPublicAddress(a.address));
  if (inside.length > 0) {
    throw refuse(
      `"${label}" was not fetched${via}: ${hostname} resolves to a private, loopback or link-local address ` +
        `(${inside.map((a) => a.address).join(", ")}). ${hint}`,
    );
  }
  return { url, addresses };
}

/** A lookup for http(s).request that answers with the addresses already checked, never asking DNS again. */
export function pinnedLookup(addresses: Address[]): LookupFunction {
  return (_hostname, options, callback) => {
    // Node asks for `all` when it tries several addresses (autoSelectFamily), else for one.
    if (options?.all) callback(null, addresses.map((a) => ({ address: a.address, family: a.family })));
    else callback(null, addresses[0].address, addresses[0].family);
  };
}

/** The options of the request for one checked hop: GET, no pooled socket, connected to the checked address. */
export function pinnedRequestOptions(target: CheckedTarget, headers: Record<string, string>, signal?: AbortSignal): https.RequestOptions {
  const { url, addresses } = target;
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return {
    protocol: url.protocol,
    hostname,
    port: url.port || (url.protocol === "https:" ? 443 : 80),
    path: `${url.pathname}${url.search}`,
    method: "GET",
    headers: { ...headers, host: url.host },
    // A kept-alive socket is keyed by host and port, not by the address checked: never reuse one.
    agent: false,
    signal,
    ...(addresses ? { lookup: pinnedLookup(addresses) } : {}),
    // TLS verifies the certificate against the name in the URL (SNI too); an IP literal sends no SNI.
    ...(url.protocol === "https:" && isIP(hostname) === 0 ? { servername: hostname } : {}),
  };
}

function describeCode(err: unknown): string {
  const code = typeof err === "object" && err !== null ? String((err as { code?: unknown }).code ?? "") : "";
  if (code === "ECONNREFUSED") return "connection refused";
  if (["ENOTFOUND", "EAI_AGAIN", "EAI_NONAME", "EAI_FAIL", "EAI_NODATA"].includes(code)) return "host not found";
  if (code === "ECONNRESET" || code === "EPIPE") return "the connection was reset";
  if (code === "ETIMEDOUT") return "connection timed out";
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH") return "host unreachable";
  if (code.startsWith("HPE_")) return "not a valid HTTP response";
  if (/CERT|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ALTNAME/.test(code)) return `its TLS certificate is not valid (${code})`;
  if (code.startsWith("ERR_SSL") || code === "EPROTO") return "the TLS handshake failed";
  return code ? `network error (${code})` : "network error";
}

function sizeLimit(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  if (mb >= 1) return `${Number(mb.toFixed(1))} MB`;
  if (bytes >= 1024) return `${Number((bytes / 1024).toFixed(1))} KB`;
  return `${bytes} bytes`;
}

/** Decoders for a Content-Encoding list, in the order to apply them; null when one is unknown. */
function decoders(encodings: string[], first: Buffer): Duplex[] | null {
  const out: Duplex[] = [];
  // The last encoding named was applied last, so it comes off first.
  for (const encoding of [...encodings].reverse()) {
    // Lenient like browsers: a body cut short after its last full block still decodes.
    if (encoding === "gzip" || encoding === "x-gzip") out.push(zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH }));
    else if (encoding === "deflate") {
      // Some servers send raw deflate for "deflate"; a zlib stream's first byte says method 8.
      const zlibWrapped = out.length > 0 || (first[0] & 0x0f) === 8;
      out.push(zlibWrapped ? zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH }) : zlib.createInflateRaw({ finishFlush: zlib.constants.Z_SYNC_FLUSH }));
    } else if (encoding === "br") out.push(zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH }));
    else return null;
  }
  return out;
}

/** Reads and decodes a response body, failing the moment the decoded bytes pass maxBytes. */
function readBody(res: http.IncomingMessage, maxBytes: number, fail: (message: string) => FetchFailed): Promise<Buffer> {
  const encodings = (res.headers["content-encoding"] ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s && s !== "identity");
  const length = Number(res.headers["content-length"]);
  if (res.headers["content-length"] !== undefined && Number.isFinite(length) && length > maxBytes) {
    res.destroy();
    return Promise.reject(fail(`the page is over ${sizeLimit(maxBytes)}`));
  }

  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    let chain: Duplex[] | null = null;
    const finish = (err: Error | null) => {
      if (settled) return;
      settled = true;
      if (err) {
        res.destroy();
        for (const s of chain ?? []) s.destroy();
        reject(err);
      } else resolve(Buffer.concat(chunks, size));
    };
    const take = (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > maxBytes) return finish(fail(`the page is over ${sizeLimit(maxBytes)}`));
      chunks.push(chunk);
    };
    const undecodable = () => fail(`its ${encodings.join(", ")} body could not be decoded`);

    res.on("data", (chunk: Buffer) => {
      if (settled) return;
      if (encodings.length === 0) return take(chunk);
      // Made on the first byte: an empty body (304, 204) has nothing to decode.
      if (!chain) {
        chain = decoders(encodings, chunk);
        if (!chain) return finish(fail(`it answered in an unsupported content-encoding (${encodings.join(", ")})`));
        for (let i = 0; i < chain.length; i++) {
          chain[i].on("error", () => finish(undecodable()));
          if (i + 1 < chain.length) chain[i].pipe(chain[i + 1]);
        }
        const last = chain[chain.length - 1];
        last.on("data", take);
        last.on("end", () => finish(null));
      }
      if (!chain[0].write(chunk)) {
        res.pause();
        chain[0].once("drain", () => res.resume());
      }
    });
    res.on("end", () => (chain ? chain[0].end() : finish(null)));
    res.on("error", (err) => finish(err));
    res.on("close", () => {
      if (!res.complete) finish(fail("the connection closed before the page was complete"));
    });
  });
}

/** Sends one GET and resolves with the response once its headers are in. */
function send(options: https.RequestOptions): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = (options.protocol === "https:" ? https : http).request(options, resolve);
    request.on("error", reject);
    request.end();
  });
}

function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/**
 * GETs a user-supplied URL under the fetch policy: http(s) only, no credentials, no private,
 * loopback or link-local address unless its host is in allowHosts, checked again on every
 * redirect before connecting. Any status is returned as a page; throws FetchRefused or FetchFailed.
 */
export async function guardedFetch(
  url: string,
  opts: { headers?: Record<string, string>; limits?: Partial<FetchLimits>; lookup?: Lookup } = {},
): Promise<FetchedPage> {
  const given = opts.limits ?? {};
  const needsEnv = given.maxBytes === undefined || given.timeoutMs === undefined || given.maxRedirects === undefined || given.allowHosts === undefined;
  const limits: FetchLimits = { ...(needsEnv ? fetchLimits() : ({} as FetchLimits)), ...stripUndefined(given) };
  const allowHosts = limits.allowHosts.map((h) => h.trim().toLowerCase()).filter(Boolean);
  const lookup = opts.lookup ?? defaultLookup;

  let asked = url;
  try {
    const parsed = new URL(url);
    if (parsed.username || parsed.password) asked = shown(parsed);
  } catch {
    // Not a URL: checkTarget says so.
  }
  const refuse = (message: string) => new FetchRefused(asked, message);

  const headers: Record<string, string> = { "user-agent": USER_AGENT, accept: "*/*" };
  for (const [name, value] of Object.entries(opts.headers ?? {})) {
    if (!OWN_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
  }
  headers["accept-encoding"] = "gzip, deflate, br";

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error("timeout")), limits.timeoutMs);
  let current: URL | undefined;
  let redirected = false;
  const fail = (message: string, at = current) => {
    const where = at && redirected ? `"${shown(at)}" (redirected from "${asked}")` : `"${asked}"`;
    return new FetchFailed(asked, `Could not fetch ${where}: ${message}.`);
  };
  try {
    let next = url;
    for (let redirects = 0; ; redirects++) {
      const target = await checkTarget(next, current, allowHosts, lookup, controller.signal, refuse, fail);
      if (current && current.origin !== target.url.origin) for (const name of ORIGIN_HEADERS) delete headers[name];
      current = target.url;
      const res = await send(pinnedRequestOptions(target, headers, controller.signal));
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (REDIRECTS.has(status) && location) {
        res.destroy();
        if (redirects >= limits.maxRedirects) throw fail(`more than ${limits.maxRedirects} redirects`);
        next = location;
        redirected = true;
        continue;
      }
      const body = await readBody(res, limits.maxBytes, fail);
      return { url: current.href, status, headers: flatHeaders(res.headers), body };
    }
  } catch (err) {
    if (err instanceof FetchRefused) throw err;
    // Aborting can surface as a closed connection first: the timer is the cause.
    if (controller.signal.aborted) throw fail(`no answer within ${limits.timeoutMs / 1000} s`);
    if (err instanceof FetchFailed) throw err;
    throw fail(describeCode(err));
  } finally {
    clearTimeout(timer);
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
