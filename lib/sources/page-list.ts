import "server-only";
import { FetchFailed, type FetchedPage } from "../fetch/guarded";
import { siteOf } from "../fetch/addresses";
import type { Source } from "../db/sources";
import { SitemapReader } from "./sitemap";

/** Sitemaps within a sitemap index are read this deep, no deeper. */
const INDEX_DEPTH = 2;

export interface ListBounds {
  /** Pages kept (FETCH_MAX_PAGES), sitemap files read (FETCH_MAX_SITEMAPS), entries read per file (FETCH_MAX_SITEMAP_URLS). */
  maxPages: number;
  maxSitemaps: number;
  maxSitemapUrls: number;
}

export interface PageList {
  /** The pages to fetch, at most maxPages. */
  pages: string[];
  /** Whether every entry of the source was read: only then is a page missing from it gone. */
  complete: boolean;
  /** Whether a page is still listed: kept, or a known page seen past the bound. */
  isListed: (url: string) => boolean;
  /** Why the list is shorter than the source, in words; null when nothing was left out. */
  note: string | null;
}

/** Reads one sitemap file into `reader`, body streamed; throws FetchFailed when it cannot be read. */
export type SitemapFetch = (url: string, sink: (chunk: Buffer) => void) => Promise<FetchedPage>;

const n = (x: number) => x.toLocaleString("en");
const entries = (x: number) => `${n(x)} ${x === 1 ? "entry" : "entries"}`;

function urlList(urls: string[], bounds: ListBounds): PageList {
  const pages = urls.slice(0, bounds.maxPages);
  const listed = new Set(urls);
  const note =
    urls.length > pages.length ? `Stopped at ${n(pages.length)} pages (FETCH_MAX_PAGES); the source lists ${n(urls.length)}.` : null;
  return { pages, complete: true, isListed: (u) => listed.has(u), note };
}

/**
 * The page URLs a source lists now: its own list, or its sitemap's (indexes followed), read one
 * file at a time as it streams in and within the bounds; memory stays within the bounds however
 * large the sitemaps are. Entries on another site than the sitemap's are left out unless the
 * source follows other hosts. `known` are the source's pages so far, `pace` spaces the requests.
 */
export async function readPageList(
  source: Source,
  fetch: SitemapFetch,
  bounds: ListBounds,
  known: Set<string>,
  pace: () => Promise<void>,
): Promise<PageList> {
  if (source.urls) return urlList(source.urls, bounds);
  const home = siteOf(new URL(source.sitemap!));
  const pages: string[] = [];
  const kept = new Set<string>();
  const seenKnown = new Set<string>();
  const queue: { url: string; depth: number }[] = [{ url: source.sitemap!, depth: 0 }];
  const queued = new Set([source.sitemap!]);
  let read = 0;
  let listed = 0;
  let unread = 0;
  let cutFiles = 0;
  let otherHosts = 0;

  while (queue.length > 0) {
    if (pages.length >= bounds.maxPages || read >= bounds.maxSitemaps) {
      unread += queue.length;
      break;
    }
    const { url, depth } = queue.shift()!;
    read++;
    let locations = 0;
    const reader = new SitemapReader((loc) => {
      if (++locations > bounds.maxSitemapUrls) {
        if (locations === bounds.maxSitemapUrls + 1) cutFiles++;
        return;
      }
      let at: URL;
      try {
        at = new URL(loc);
      } catch {
        return;
      }
      if (at.protocol !== "http:" && at.protocol !== "https:") return;
      // Another site's entries are that site's business; allow-listed hosts are refused by the fetch anyway.
      if (siteOf(at) !== home && !source.cross_host) {
        otherHosts++;
        return;
      }
      if (reader.index) {
        if (depth + 1 > INDEX_DEPTH || queued.has(loc)) return;
        // Only as many as may still be read are kept; the rest are counted.
        if (queued.size < bounds.maxSitemaps) {
          queued.add(loc);
          queue.push({ url: loc, depth: depth + 1 });
        } else unread++;
        return;
      }
      if (kept.has(loc)) return;
      listed++;
      if (known.has(loc)) seenKnown.add(loc);
      if (pages.length < bounds.maxPages) {
        pages.push(loc);
        kept.add(loc);
      }
    });
    await pace();
    const res = await fetch(url, (chunk) => reader.write(chunk));
    if (res.status < 200 || res.status > 299) throw new FetchFailed(url, `${url} answered HTTP ${res.status}.`);
    try {
      reader.end();
    } catch (err) {
      throw new FetchFailed(url, `${url}: ${err instanceof Error ? err.message : "unreadable"}.`);
    }
  }

  const complete = unread === 0 && cutFiles === 0;
  const notes: string[] = [];
  if (pages.length >= bounds.maxPages && (listed > pages.length || unread > 0)) {
    const rest = unread > 0 ? `, and ${n(unread)} more ${unread === 1 ? "sitemap was" : "sitemaps were"} not read` : "";
    notes.push(`Stopped at ${n(pages.length)} pages (FETCH_MAX_PAGES); the sitemaps read list ${n(listed)}${rest}.`);
  } else if (unread > 0) {
    notes.push(
      `Stopped after reading ${n(read)} sitemaps (FETCH_MAX_SITEMAPS); ${n(unread)} more ${unread === 1 ? "was" : "were"} not read.`,
    );
  }
  if (cutFiles > 0) {
    notes.push(
      `${n(cutFiles)} ${cutFiles === 1 ? "sitemap lists" : "sitemaps list"} more than ${n(bounds.maxSitemapUrls)} entries; the rest was not read (FETCH_MAX_SITEMAP_URLS).`,
    );
  }
  if (!complete) notes.push("Pages the unread part may list are not treated as gone.");
  if (otherHosts > 0)
    notes.push(
      `${entries(otherHosts)} on other hosts than the sitemap's were left out; “Follow other hosts” fetches those on public hosts.`,
    );
  return { pages, complete, isListed: (u) => kept.has(u) || seenKnown.has(u), note: notes.length > 0 ? notes.join(" ") : null };
}
