import "server-only";
import fs from "node:fs";
import path from "node:path";
import { env } from "../env.mjs";
import { db } from "../db/client";
import { readyAmong } from "../db/chunks";
import { embedder } from "../embeddings/configured";
import { chunkId, collectionFor } from "../vector-store/client";
import { agentVectors, readdVectors, unreachableAmong } from "../vector-store/chunks";
import { onChromaBack } from "../vector-store/fetch";
import { enqueueCleanup } from "./cleanup";

/**
 * Chroma killed while it writes can come back holding chunks that its index cannot return: they
 * are stored and counted, but no query finds them, so a ready document is never retrieved (seen
 * in the soak test: 9 of about 100 chunks after three kills). So after Chroma restarts from an
 * unclean exit (the launcher counts those in `<DATA_DIR>/chroma/unclean-restarts`), and after it
 * answers again following refused connections (any Chroma, CHROMA_URL too), every chunk of the
 * ready documents of the configured model is queried with its own vector, newest documents
 * first (the ones written around the crash), and those not returned are written again. It runs
 * in the background, one batch at a time; a new restart starts it over from the newest.
 */

/** Chunks checked per step. */
const BATCH_CHUNKS = 200;
/** Chroma replays its log when it starts; checking waits a little for it to settle. */
const START_DELAY_MS = 1_000;

export interface RecheckState {
  state: "idle" | "waiting" | "running";
  reason: string | null;
  checked: number;
  total: number;
  /** Chunks written again in this pass, and of those, how many a query still cannot return. */
  rewritten: number;
  still_unreachable: number;
  last_finished_at: string | null;
}

const holder = globalThis as unknown as { __kbRecheck?: { s: RecheckState; again: boolean; timer: NodeJS.Timeout | null; watch: NodeJS.Timeout | null } };
const current = () =>
  (holder.__kbRecheck ??= {
    s: { state: "idle", reason: null, checked: 0, total: 0, rewritten: 0, still_unreachable: 0, last_finished_at: null },
    again: false,
    timer: null,
    watch: null,
  });

export const recheckState = (): RecheckState => ({ ...current().s });

/** Asks for a pass (or, while one runs, for another from the newest documents once this batch is done). */
export function requestRecheck(reason: string): void {
  const c = current();
  if (c.s.state === "running") {
    c.again = true;
    c.s.reason = reason;
    return;
  }
  if (c.s.state === "waiting") return;
  c.s = { ...c.s, state: "waiting", reason };
  c.timer = setTimeout(() => void run(), START_DELAY_MS);
  c.timer.unref();
}

/** Ready documents of a model, newest first, with their chunk counts. */
function readyNewestFirst(model: string): { id: number; agent_id: number; chunk_count: number }[] {
  return db()
    .prepare("SELECT id, agent_id, chunk_count FROM documents WHERE status = 'ready' AND embedding_model = ? ORDER BY id DESC")
    .all(model) as never;
}

async function run(): Promise<void> {
  const c = current();
  c.s = { ...c.s, state: "running", checked: 0, total: 0, rewritten: 0, still_unreachable: 0 };
  const restarts = uncleanRestarts();
  try {
    do {
      c.again = false;
      await pass(c.s, () => c.again);
    } while (c.again);
    if (restarts !== null) markChecked(restarts);
    c.s.last_finished_at = new Date().toISOString();
    if (c.s.rewritten > 0) {
      console.log(
        `[kb-inspector] after Chroma came back (${c.s.reason}), ${c.s.rewritten} of ${c.s.checked} chunks could not be found by a query and were written again` +
          (c.s.still_unreachable ? `; ${c.s.still_unreachable} still cannot (see the audit)` : ""),
      );
    }
  } catch (err) {
    // Chroma went away again: the next restart or reconnection asks for a new pass.
    console.error("[kb-inspector] checking the index after Chroma came back stopped:", err instanceof Error ? err.message : err);
  } finally {
    c.s.state = "idle";
  }
}

/** Chunks still lost right after they were written again, per agent. */
type Pending = Map<number, Set<string>>;

async function pass(s: RecheckState, restarted: () => boolean): Promise<void> {
  const pending: Pending = new Map();
  const model = embedder();
  const collection = await collectionFor(model);
  const docs = readyNewestFirst(model.model);
  s.checked = 0;
  s.total = docs.reduce((n, d) => n + d.chunk_count, 0);
  for (let i = 0; i < docs.length && !restarted(); ) {
    const batch: typeof docs = [];
    for (let n = 0; i < docs.length && (n === 0 || n + docs[i].chunk_count <= BATCH_CHUNKS); i++) {
      batch.push(docs[i]);
      n += docs[i].chunk_count;
    }
    const byAgent = new Map<number, typeof docs>();
    for (const d of batch) byAgent.set(d.agent_id, [...(byAgent.get(d.agent_id) ?? []), d]);
    for (const [agentId, mine] of byAgent) {
      const ids = mine.flatMap((d) => Array.from({ length: d.chunk_count }, (_, k) => chunkId(d.id, k)));
      const lost = await unreachableAmong(collection, agentId, await agentVectors(collection, agentId, ids));
      if (lost.size > 0) await rewrite(collection, agentId, [...lost], s, pending);
      s.checked += ids.length;
    }
    await new Promise<void>((r) => setImmediate(r)); // searches go first
  }
  // Rewriting moves the graph: what was still lost right after its rewrite is looked at again,
  // written once more if need be, and what is lost then is what the pass reports.
  const left: Pending = new Map();
  for (const [agentId, ids] of pending) await rewrite(collection, agentId, [...ids], s, left, false);
  s.still_unreachable = [...left.values()].reduce((n, ids) => n + ids.size, 0);
}

async function rewrite(collection: Awaited<ReturnType<typeof collectionFor>>, agentId: number, ids: string[], s: RecheckState, pending: Pending, count = true): Promise<void> {
  // Asked again, so that chunks of a document removed meanwhile are left alone.
  const again = await agentVectors(collection, agentId, ids);
  const lost = await unreachableAmong(collection, agentId, again);
  const ready = readyAmong(agentId, again.map((v) => v.document_id));
  const target = again.filter((v) => lost.has(v.id) && ready.has(v.document_id)).map((v) => v.id);
  if (target.length === 0) return;
  const written = await readdVectors(collection, agentId, target);
  if (count) s.rewritten += written.length;
  const still = await unreachableAmong(collection, agentId, written);
  if (still.size > 0) pending.set(agentId, new Set([...(pending.get(agentId) ?? []), ...still]));
  // A document removed while its chunks were written again gets its removal queued once more.
  const stillReady = readyAmong(agentId, written.map((v) => v.document_id));
  for (const documentId of new Set(written.map((v) => v.document_id))) {
    if (!stillReady.has(documentId)) enqueueCleanup(agentId, documentId, 0, "removed while written again after a Chroma restart");
  }
}

// The launcher's count of Chroma starts after an unclean exit, and the count last checked.
const chromaDir = () => path.join(env().DATA_DIR, "chroma");
function uncleanRestarts(): number | null {
  try {
    return Number(fs.readFileSync(path.join(chromaDir(), "unclean-restarts"), "utf8").trim()) || 0;
  } catch {
    return null; // not the embedded Chroma, or it never restarted uncleanly
  }
}
function checkedRestarts(): number {
  try {
    return Number(fs.readFileSync(path.join(env().DATA_DIR, "unclean-restarts-checked"), "utf8").trim()) || 0;
  } catch {
    return 0;
  }
}
function markChecked(n: number): void {
  try {
    fs.writeFileSync(path.join(env().DATA_DIR, "unclean-restarts-checked"), `${n}\n`);
  } catch (err) {
    console.error("[kb-inspector] could not record the index check:", err instanceof Error ? err.message : err);
  }
}

/**
 * Starts the watch: now and every few seconds, whether the embedded Chroma restarted from an
 * unclean exit since the last finished pass; and at once when Chroma answers after refusing.
 */
export function watchChromaRestarts(everyMs = 3_000): void {
  const c = current();
  if (c.watch) return;
  let seen = checkedRestarts();
  const look = () => {
    const n = uncleanRestarts();
    if (n !== null && n > seen) {
      seen = n;
      requestRecheck("Chroma restarted after an unclean exit");
    }
  };
  look();
  c.watch = setInterval(look, everyMs);
  c.watch.unref();
  onChromaBack(() => requestRecheck("Chroma answered again after refusing connections"));
}
