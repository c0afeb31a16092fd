import "server-only";
import fs from "node:fs";
import path from "node:path";
import { EmbeddingError } from "../embeddings/index";
import { chroma, collectionFor, isVectorStoreUnavailable } from "../vector-store/client";
import { withChromaDeadline } from "../vector-store/fetch";
import { agentChunkCount, embeddingModelsInUse, indexingDocumentIds } from "../db/documents";
import { embedder } from "../embeddings/configured";
import { AppError, unreadableIndexDetail } from "../core/errors";
import { activeIngests } from "../ingest/pipeline";
import { pendingCleanups } from "../ingest/cleanup";
import { probeQuery } from "../vector-store/chunks";
import { compactServingText, exactBytesHeld, exactLimit } from "../retrieval/exact";
import { listAgents } from "../db/agents";
import { env } from "../env.mjs";
import { recheckState } from "./after-restart";
import { rebuildState } from "./rebuild";
import { copyState } from "./exact-copies";
import type { ExactState, Health } from "./reports";
import { indexUpkeepState, type CachedHealth } from "./state";

export type { ExactState, Health } from "./reports";

function exactState(): ExactState {
  const copies = copyState();
  return {
    max_chunks: exactLimit(),
    memory_mb: env().EXACT_MEMORY_MB,
    held_mb: Math.round((exactBytesHeld() / (1024 * 1024)) * 10) / 10,
    large_agents: largeAgents(),
    documents_without_copy: copies.missing,
    copying: copies.running,
    copy_error: copies.error,
  };
}

/** Agents past EXACT_MAX_CHUNKS and how each is served now. */
function largeAgents(): ExactState["large_agents"] {
  const limit = exactLimit();
  if (limit <= 0) return [];
  const model = embedder().model;
  return listAgents().flatMap((a) => {
    const serving = compactServingText(a.id, model);
    return serving ? [{ agent_id: a.id, name: a.name, chunks: agentChunkCount(a.id), serving }] : [];
  });
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The health check answers within seconds even when Chroma hangs, whatever CHROMA_TIMEOUT_MS is. */
export const HEALTH_CHROMA_DEADLINE_MS = 3_000;
let chromaDeadlineMs = HEALTH_CHROMA_DEADLINE_MS;
const probe = <T>(work: () => Promise<T>) => withChromaDeadline(chromaDeadlineMs, work);

/**
 * For tests that need a healthy answer from a Chroma a busy machine slows down: the probes' own
 * deadline (Infinity: only CHROMA_TIMEOUT_MS). Returns the undo.
 */
export function useHealthDeadline(ms: number): () => void {
  chromaDeadlineMs = ms;
  return () => void (chromaDeadlineMs = HEALTH_CHROMA_DEADLINE_MS);
}

/** What start-up recovery or the clean-up queue has not finished: read from SQLite only. */
export function indexBacklog(): Health["index"] {
  const active = activeIngests();
  return {
    stuck_documents: indexingDocumentIds().filter((id) => !active.has(id)).length,
    awaiting_cleanup: pendingCleanups().length,
    recheck: recheckState(),
    rebuild: rebuildState(),
    exact: exactState(),
  };
}

/**
 * The app's own words for a failed check: timeouts, refusals, model mismatches and provider
 * errors already say what happened in words a user can act on; anything else is a library's
 * text, which goes to the server log only.
 */
function ownWords(err: unknown, what: string): string {
  if (isVectorStoreUnavailable(err) || err instanceof AppError || err instanceof EmbeddingError) return message(err);
  console.error(`[kb-inspector] health check: ${what}:`, err);
  return `${what}; the details are in the server log.`;
}

/**
 * What a query that Chroma failed because it cannot read the collection's index means, and the
 * remedy; null for any other failure. Chroma's own words go to the server log.
 */
function unreadableIndexWords(err: unknown): string | null {
  const detail = unreadableIndexDetail(err);
  if (!detail) return null;
  // Chroma's text stays in the server log, as every library's does (ownWords).
  console.error(`[kb-inspector] health check: Chroma cannot read the collection's index: ${detail}`);
  return (
    "Chroma cannot read the collection's vector index: its files are damaged (an unclean stop of Chroma can do this), " +
    "so searches of agents served by the index fail, and so do uploads and removals. " +
    "Rebuild the index from the app's copies of the vectors: Index health → Rebuild index…, `POST /api/audit/rebuild` " +
    "or `npm run audit -- --rebuild`. Chroma's own words are in the server log."
  );
}

/** Chroma answers, and one probe embedding plus a query of the collection succeed. */
export async function checkHealth(): Promise<Health> {
  const health: Health = {
    ok: false,
    chroma: { ok: false, index_unreadable: false },
    embedder: { ok: false },
    stale_models: [],
    index: indexBacklog(),
  };
  try {
    await probe(() => chroma().heartbeat());
    health.chroma.ok = true;
  } catch (err) {
    health.chroma.error = ownWords(err, "Chroma answered the heartbeat with an error");
  }
  try {
    const e = embedder();
    health.embedder.model = e.model;
    const [vector] = await e.embed(["health probe"]);
    health.embedder.dimension = vector.length;
    health.embedder.ok = true;
    health.stale_models = embeddingModelsInUse().filter((m) => m !== e.model);
    // Unfiltered: a filter costs a pass over every record's metadata (about a second at 1,000,000).
    if (health.chroma.ok) await probe(async () => probeQuery(await collectionFor(e), vector));
  } catch (err) {
    if (health.embedder.ok) {
      const unreadable = unreadableIndexWords(err);
      health.chroma.ok = false;
      health.chroma.index_unreadable = unreadable !== null;
      health.chroma.error = unreadable ?? ownWords(err, "The probe query to Chroma failed");
    } else {
      health.embedder.error = `The embedder failed: ${ownWords(err, "an unexpected error")}`;
    }
  }
  health.ok = health.chroma.ok && health.embedder.ok;
  return health;
}

/** Written in DATA_DIR by the launcher while it seeds the demo agent (scripts/demo-seed.mjs, DEMO_SEED_FILE). */
const DEMO_SEED_FILE = "demo-seed.json";

/**
 * Why the app is not ready yet although it answers: the demo agent of a first start is being
 * seeded, and a search of it now would find nothing. Read from one small file, so health says
 * so at once; a seeding that gave up says "failed" in it and no longer holds health back.
 */
export function startingState(): { status: "starting"; message: string } | null {
  let seed: { failed?: string } | null;
  try {
    seed = JSON.parse(fs.readFileSync(path.join(env().DATA_DIR, DEMO_SEED_FILE), "utf8"));
  } catch {
    return null; // no marker (or none the launcher finished writing): nothing is being seeded
  }
  if (!seed || seed.failed) return null;
  return {
    status: "starting",
    message:
      "The demo agent of the first start is being set up (its articles are being indexed); health answers ok once a search of it finds them.",
  };
}

/** How long the page banner and anonymous GET /api/health reuse a check: each one embeds a probe (a paid call with OpenAI) and queries Chroma. */
export const HEALTH_CACHE_MS = 5_000;

/** checkHealth() for page renders and anonymous probes: concurrent callers share one check, and a result younger than HEALTH_CACHE_MS is reused. */
export function cachedHealth(): Promise<Health> {
  const state = indexUpkeepState();
  const last = state.health;
  if (last && (last.at === undefined || Date.now() - last.at < HEALTH_CACHE_MS)) return last.pending;
  const entry: CachedHealth = { pending: checkHealth() };
  state.health = entry;
  entry.pending.then(
    () => (entry.at = Date.now()),
    () => {
      if (state.health === entry) state.health = null; // a thrown check is not kept
    },
  );
  return entry.pending;
}
