import "server-only";
import { createHash } from "node:crypto";
import type { Metadata } from "../core/metadata";
import { env } from "../env.mjs";
import { conflict } from "../core/errors";
import { ingestFile } from "../ingest/pipeline";
import { removeDocument } from "../ingest/remove";
import { FILES_IN_PARALLEL } from "../ingest/uploads";
import { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE } from "../core/chunking";
import { now } from "../db/client";
import {
  deletePage,
  finishSync,
  getSource,
  pageDocument,
  saveSyncProgress,
  sourcePages,
  startSync,
  touchFetched,
  upsertPage,
  type Source,
  type SourcePage,
  type SyncCounts,
  type SyncRecord,
} from "../db/sources";
import { FetchFailed, FetchRefused, guardedFetch, type FetchedPage } from "../fetch/guarded";
import { pageFilename } from "./page-name";
import { readPageList } from "./page-list";

/** `scope`: the URLs the source was configured with; `sink` takes a sitemap's body as it streams in. */
export type Fetcher = (
  url: string,
  opts?: { headers?: Record<string, string>; scope?: string[]; sink?: (chunk: Buffer) => void },
) => Promise<FetchedPage>;

export interface SyncOptions {
  trigger?: SyncRecord["trigger"];
  fetcher?: Fetcher;
  /** Pages fetched at once, pages per second (0: no limit) and most pages read; the FETCH_* settings by default. */
  concurrency?: number;
  ratePerSecond?: number;
  maxPages?: number;
  /** Sitemap files read and entries read per file; FETCH_MAX_SITEMAPS and FETCH_MAX_SITEMAP_URLS by default. */
  maxSitemaps?: number;
  maxSitemapUrls?: number;
  /** Awaited before every request, sitemaps and pages alike; by default spaced at ratePerSecond. */
  pace?: () => Promise<void>;
}
const PROGRESS_EVERY = 25;
/** Pages indexed at once, as many as an upload's files (their Chroma writes are shared). */
const INGESTS_AT_ONCE = FILES_IN_PARALLEL;
const MAX_FAILURES_KEPT = 500;

const problem = (err: unknown) => (err instanceof FetchRefused || err instanceof FetchFailed ? err.message : null);

/** Spaces request starts at most `perSecond` a second; 0 leaves them unspaced. */
function pacer(perSecond: number) {
  let next = 0;
  return async () => {
    if (perSecond <= 0) return;
    const t = Date.now();
    const wait = Math.max(0, next - t);
    next = Math.max(t, next) + 1000 / perSecond;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  };
}

type PageOutcome = { kind: "added" | "changed" | "unchanged" } | { kind: "failed"; reason: string } | { kind: "gone"; reason: string };

/**
 * Fetches one page and says how it stands: unchanged, gone, or failed with the document kept;
 * or, when its text is new, the ingest that brings its document in step, to run apart from the
 * fetches (a few pages are fetched at once, many more can be indexed at once).
 */
async function fetchPage(
  agentId: number,
  sourceId: number,
  url: string,
  known: SourcePage | undefined,
  fetcher: Fetcher,
  scope: string[],
  metadata: Metadata = {},
): Promise<PageOutcome | { ingest: () => Promise<PageOutcome> }> {
  const doc = known && pageDocument(agentId, known.filename, url);
  // A conditional fetch only while the document the validators describe is still there.
  const headers: Record<string, string> = {};
  if (doc && doc.sha256 === known.sha256) {
    if (known.etag) headers["if-none-match"] = known.etag;
    if (known.last_modified) headers["if-modified-since"] = known.last_modified;
  }
  let res: FetchedPage;
  try {
    res = await fetcher(url, { headers, scope });
  } catch (err) {
    const reason = problem(err);
    if (reason === null) throw err;
    if (known) upsertPage({ ...known, error: reason });
    return { kind: "failed", reason };
  }
  const at = now();
  if (res.status === 404 || res.status === 410) return { kind: "gone", reason: `answered HTTP ${res.status}` };
  if (res.status === 304 && doc) {
    touchFetched(doc.id, at);
    upsertPage({ ...known!, fetched_at: at, state: "active", error: null });
    return { kind: "unchanged" };
  }
  if (res.status < 200 || res.status > 299) {
    const reason = `answered HTTP ${res.status}`;
    if (known) upsertPage({ ...known, error: reason });
    return { kind: "failed", reason };
  }
  const sha256 = createHash("sha256").update(res.body).digest("hex");
  const filename = known?.filename ?? pageFilename(url, res.headers["content-type"]);
  const page: SourcePage = {
    source_id: sourceId,
    url,
    filename,
    sha256,
    etag: res.headers["etag"] ?? null,
    last_modified: res.headers["last-modified"] ?? null,
    fetched_at: at,
    state: "active",
    error: null,
  };
  if (doc && doc.sha256 === sha256) {
    touchFetched(doc.id, at);
    upsertPage(page);
    return { kind: "unchanged" };
  }
  return {
    ingest: async () => {
      const result = await ingestFile(
        agentId,
        // The source's metadata for every page, over the page's own meta tags.
        { filename, bytes: new Uint8Array(res.body), sourceUrl: url, metadata },
        { chunkSize: DEFAULT_CHUNK_SIZE, chunkOverlap: DEFAULT_CHUNK_OVERLAP },
      );
      if (result.status !== "ready") {
        if (known) upsertPage({ ...known, error: result.message });
        return { kind: "failed", reason: result.message };
      }
      upsertPage(page);
      // The same text as a document of another name: the page is in step, and makes none of its own.
      if (result.outcome === "duplicate") return { kind: "unchanged" };
      return { kind: doc || result.outcome === "replaced" ? "changed" : "added" };
    },
  };
}

/** A page gone from its source: its document is removed, or the removal proposed, as the source says. */
async function pageGone(agentId: number, source: Source, page: SourcePage): Promise<"removed" | "proposed"> {
  if (source.on_removed === "propose") {
    upsertPage({ ...page, state: "removal_proposed" });
    return "proposed";
  }
  await removePageDocument(agentId, page);
  return "removed";
}

/** Removes the document a page made (never one uploaded by hand or made by another page) and forgets the page. */
export async function removePageDocument(agentId: number, page: SourcePage): Promise<void> {
  const doc = pageDocument(agentId, page.filename, page.url);
  if (doc) await removeDocument(agentId, doc.id);
  deletePage(page.source_id, page.url);
}

/**
 * Syncs one source: reads its page list, fetches each page (a bounded number at once, paced),
 * re-indexes what changed, adds what is new, and handles pages that left the list or answer
 * 404/410 as the source says. A page that fails is counted with its reason and keeps its
 * document; a list that cannot be read fails the sync and removes nothing.
 */
export async function syncSource(agentId: number, sourceId: number, opts: SyncOptions = {}): Promise<SyncRecord> {
  const source = getSource(agentId, sourceId);
  const record = startSync(sourceId, opts.trigger ?? "manual");
  if (!record) throw conflict("A sync of this source is running already; wait for it to finish.");
  return runSync(agentId, source, record, opts);
}

/** Starts a sync and answers at once with its record; the sync goes on in the background. */
export function startSourceSync(
  agentId: number,
  sourceId: number,
  opts: SyncOptions = {},
): { record: SyncRecord; done: Promise<SyncRecord> } {
  const source = getSource(agentId, sourceId);
  const record = startSync(sourceId, opts.trigger ?? "manual");
  if (!record) throw conflict("A sync of this source is running already; wait for it to finish.");
  return { record, done: runSync(agentId, source, record, opts) };
}

async function runSync(agentId: number, source: Source, record: SyncRecord, opts: SyncOptions): Promise<SyncRecord> {
  const e = env();
  const fetcher = opts.fetcher ?? guardedFetch;
  const counts: SyncCounts = { seen: 0, added: 0, changed: 0, removed: 0, proposed: 0, unchanged: 0, failed: 0 };
  const failures: SyncRecord["failures"] = [];
  const fail = (url: string, reason: string) => {
    counts.failed++;
    if (failures.length < MAX_FAILURES_KEPT) failures.push({ url, reason });
  };
  // An allow-listed host is reached only on the sites the source itself names.
  const scope = source.sitemap ? [source.sitemap] : source.urls!;
  try {
    const known = new Map(sourcePages(source.id).map((p) => [p.url, p]));
    const pace = opts.pace ?? pacer(opts.ratePerSecond ?? e.FETCH_RATE_PER_S);
    const bounds = {
      maxPages: opts.maxPages ?? e.FETCH_MAX_PAGES,
      maxSitemaps: opts.maxSitemaps ?? e.FETCH_MAX_SITEMAPS,
      maxSitemapUrls: opts.maxSitemapUrls ?? e.FETCH_MAX_SITEMAP_URLS,
    };
    let list;
    try {
      list = await readPageList(source, (url, sink) => fetcher(url, { scope, sink }), bounds, new Set(known.keys()), pace);
    } catch (err) {
      const reason = problem(err);
      if (reason === null) throw err;
      return finishSync(record.id, counts, failures, `The sitemap could not be read, so nothing was changed: ${reason}`);
    }
    const { pages } = list;
    const count = async (url: string, outcome: PageOutcome) => {
      counts.seen++;
      if (outcome.kind === "failed") fail(url, outcome.reason);
      else if (outcome.kind === "gone") {
        const page = known.get(url);
        if (page) counts[await pageGone(agentId, source, page)]++;
        else fail(url, outcome.reason);
      } else counts[outcome.kind]++;
      if (counts.seen % PROGRESS_EVERY === 0) saveSyncProgress(record.id, counts, failures);
    };
    const indexing = new Set<Promise<void>>();
    let next = 0;
    const worker = async () => {
      while (next < pages.length) {
        const url = pages[next++]!;
        await pace();
        const step = await fetchPage(agentId, source.id, url, known.get(url), fetcher, scope, source.metadata);
        if (!("ingest" in step)) {
          await count(url, step);
          continue;
        }
        while (indexing.size >= INGESTS_AT_ONCE) await Promise.race(indexing);
        const running: Promise<void> = step
          .ingest()
          .then((outcome) => count(url, outcome))
          .finally(() => indexing.delete(running));
        indexing.add(running);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? e.FETCH_CONCURRENCY) }, worker));
    await Promise.all(indexing);
    // Pages the list no longer names (those past FETCH_MAX_PAGES are still listed, so they stay);
    // a list cut short may name them in its unread part.
    if (list.complete) {
      for (const page of known.values()) {
        if (!list.isListed(page.url)) counts[await pageGone(agentId, source, page)]++;
      }
    }
    return finishSync(record.id, counts, failures, null, list.note);
  } catch (err) {
    console.error(`[kb-inspector] sync of source ${source.id} failed:`, err);
    return finishSync(
      record.id,
      counts,
      failures,
      "The sync stopped on a server error; the details are in its log. The next sync finishes it.",
    );
  }
}
