import "server-only";
// Fetches user-supplied URLs (sitemaps, article pages) without letting them reach the server's
// own network: every hop is checked before it connects, and connects to the address checked.
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { env } from "../env.mjs";
import { allowListed, isPublicAddress, siteOf, withoutDot } from "./addresses";
import { readBody } from "./body";

export { isPublicAddress } from "./addresses";

export interface FetchLimits {
  /** Most bytes of the decoded body. */
  maxBytes: number;
  /** Bounds the whole fetch: lookups, every redirect, the body. */
  timeoutMs: number;
  maxRedirects: number;
  /** Lowercased `name` (the scheme's default port) or `name:port`: fetched whatever address they resolve to, for callers configured with them. */
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

/** Rejects with signal's reason once it aborts: a DNS lookup cannot be cancelled, only abandoned. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** What one fetch may reach, fixed for all its hops. */
interface Policy {
  allowHosts: string[];
  /** Sites (siteOf) the caller was configured with: an allow-listed host is reached only on one of them. */
  scope: Set<string>;
  isPublic: (address: string) => boolean;
  lookup: Lookup;
}

/**
 * Checks one URL (the first or a redirect's) against the policy; throws FetchRefused naming what
 * to change. `refuse` and `fail` build the errors so they carry the URL the caller asked for.
 */
async function checkTarget(
  raw: string,
  base: URL | undefined,
  policy: Policy,
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
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const literal = isIP(hostname) !== 0;
  const resolve = async () => {
    try {
      const found = await untilAborted(policy.lookup(hostname), signal);
      if (found.length === 0) throw Object.assign(new Error("no addresses"), { code: "ENOTFOUND" });
      return found;
    } catch (err) {
      if (signal.aborted) throw err;
      const why = describeCode(err);
      throw fail(why === "host not found" ? `${hostname} was not found` : `looking up ${hostname} failed: ${why}`, url);
    }
  };

  const site = siteOf(url);
  const listed = allowListed(url, policy.allowHosts);
  // The allowance is the configured site's own: never reached from another site's redirect or sitemap.
  if (listed && policy.scope.has(site) && (!base || siteOf(base) === site)) return { url, addresses: literal ? null : await resolve() };
  const hint = listed
    ? `FETCH_ALLOW_HOSTS admits ${site} only for a source whose own sitemap or page URLs are on it, never through a redirect from another site or another site's sitemap.`
    : "FETCH_ALLOW_HOSTS lists hosts allowed anyway.";
  const name = withoutDot(hostname);
  if (name === "localhost" || name.endsWith(".localhost")) {
    throw refuse(`"${label}" was not fetched${via}: ${name} is this server itself. ${hint}`);
  }
  if (literal) {
    if (!policy.isPublic(hostname))
      throw refuse(`"${label}" was not fetched${via}: it is a private, loopback or link-local address. ${hint}`);
    return { url, addresses: null };
  }
  const addresses = await resolve();
  // The rule is named, never the address: what a name resolves to inside is not the user's to see.
  if (addresses.some((a) => !policy.isPublic(a.address))) {
    throw refuse(`"${label}" was not fetched${via}: ${hostname} resolves to a private, loopback or link-local address. ${hint}`);
  }
  return { url, addresses };
}

/** A lookup for http(s).request that answers with the addresses already checked, never asking DNS again. */
export function pinnedLookup(addresses: Address[]): LookupFunction {
  return (_hostname, options, callback) => {
    // Node asks for `all` when it tries several addresses (autoSelectFamily), else for one.
    if (options?.all)
      callback(
        null,
        addresses.map((a) => ({ address: a.address, family: a.family })),
      );
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
 * loopback or link-local address unless its host is in allowHosts and on a site of `scope`
 * (reached directly, not from another site), checked again on every redirect before connecting.
 * Any status is returned as a page; throws FetchRefused or FetchFailed.
 */
export async function guardedFetch(
  url: string,
  opts: {
    headers?: Record<string, string>;
    limits?: Partial<FetchLimits>;
    lookup?: Lookup;
    /** URLs the caller was configured with (a source's sitemap or page URLs); by default the URL asked for. */
    scope?: string[];
    /** Takes the decoded body chunk by chunk instead of keeping it: the page's body is then empty. */
    sink?: (chunk: Buffer) => void;
    /** Which resolved addresses count as public; tests let a loopback address stand in for a public host. */
    isPublic?: (address: string) => boolean;
  } = {},
): Promise<FetchedPage> {
  const given = opts.limits ?? {};
  const needsEnv =
    given.maxBytes === undefined || given.timeoutMs === undefined || given.maxRedirects === undefined || given.allowHosts === undefined;
  const limits: FetchLimits = { ...(needsEnv ? fetchLimits() : ({} as FetchLimits)), ...stripUndefined(given) };
  const allowHosts = limits.allowHosts.map((h) => h.trim().toLowerCase()).filter(Boolean);
  const policy: Policy = {
    allowHosts,
    scope: scopeSites(opts.scope ?? [url]),
    isPublic: opts.isPublic ?? isPublicAddress,
    lookup: opts.lookup ?? defaultLookup,
  };

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
      const target = await checkTarget(next, current, policy, controller.signal, refuse, fail);
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
      const body = await readBody(res, limits.maxBytes, fail, opts.sink);
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

function scopeSites(urls: string[]): Set<string> {
  const sites = new Set<string>();
  for (const u of urls) {
    try {
      sites.add(siteOf(new URL(u)));
    } catch {
      // Not a URL: it names no site.
    }
  }
  return sites;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
