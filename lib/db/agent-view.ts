import "server-only";
import type { Filter } from "../core/filter";
import { getAgent, type Agent } from "./agents";
import { agentChunkCount, hiddenVectorCount, readySignature, readyStamp } from "./documents";
import { readyAmong } from "./chunks";
import { db } from "./client";
import { draftDocuments, draftRemovals, getDraft, type DraftSettings } from "./drafts";
import { assertKnownKeys, matchingDocuments } from "./metadata";

/**
 * What one request knows of its agent, resolved once: the agent's row (its settings: tools, the
 * no-match cut, the retrieval mode, question logging) and facts about its ready documents, each
 * read from SQLite when first asked for and kept for the rest of the request. withAgent
 * (lib/http/route.ts) makes one per request; a caller holding an id makes one with AgentView.of.
 * Retrieval and ingest take it instead of an id, so they do not look the same facts up again.
 * Never kept past its request: a fact that must be seen as it is now (after a query, say) is read
 * again from SQLite where that matters, and the code says why there.
 *
 * A view may look at the agent as a draft would leave it (AgentView.asDraft): its documents are
 * the served ones less those the draft replaces or removes, plus the draft's staged versions, and
 * its row carries the draft's mode and cut. Every stage of the read path asks the view, not
 * SQLite, which documents it may show (`admitted`), so a draft is previewed by the same code that
 * serves the agent once it is published.
 *
 * A view may also be narrowed by a metadata filter (`filtered`): its documents are then only those
 * the filter matches, resolved once in SQLite, so every stage ranks among exactly those (the
 * filter is applied before ranking, never after a top_k). A filter narrows what is ranked, not
 * how: query weighting and bm25 still count the whole agent, so a chunk has the same distance and
 * the same keyword score filtered or not.
 */
export class AgentView {
  #agent: Agent | undefined;
  #readyChunks: number | undefined;
  readonly #signatures = new Map<string, string>();
  readonly #memo = new Map<string, unknown>();
  #unfiltered: AgentView | undefined;

  private constructor(
    readonly id: number,
    agent?: Agent,
    /** The draft this view looks through; undefined: what the agent serves. */
    readonly draft?: DraftSet,
    /** The metadata filter narrowing it, and the documents it matches; undefined: every document. */
    readonly scope?: FilterScope,
  ) {
    this.#agent = agent;
  }

  /** The view itself, a view over a loaded row, or one over an id whose row is loaded when first asked for. */
  static of(ref: AgentRef): AgentView {
    if (typeof ref === "number") return new AgentView(ref);
    // By shape, not instanceof: a bundle that loaded its own copy of this module may have made it.
    return "readyChunkCount" in ref ? ref : new AgentView(ref.id, ref);
  }

  /** The agent as draft `draftId` would leave it, read now (a draft of another agent: a 404). */
  static asDraft(ref: AgentRef, draftId: number): AgentView {
    const served = AgentView.of(ref);
    return new AgentView(served.id, served.#agent, draftSet(served.id, draftId));
  }

  /** The agent as it is served (this view without its draft; a filter stays). */
  served(): AgentView {
    if (!this.draft) return this;
    const served = new AgentView(this.id, this.#agent);
    return this.scope ? served.filtered(this.scope.filter) : served;
  }

  /** This view without its filter (one for the request: what it looked up is kept). */
  unfiltered(): AgentView {
    if (!this.scope) return this;
    return (this.#unfiltered ??= new AgentView(this.id, this.#agent, this.draft));
  }

  /**
   * This view narrowed to the documents `filter` matches (none given: the view itself). A key no
   * document of the agent has is a 422 naming it (lib/db/metadata.ts).
   */
  filtered(filter: Filter | undefined, { checkKeys = true } = {}): AgentView {
    if (!filter) return this;
    if (checkKeys) assertKnownKeys(this.id, filter);
    const d = this.draft;
    const stamp = readyStamp(this.id);
    const documents = matchingDocuments(this.id, filter, d ? [...d.added.keys()] : [], stamp);
    if (d) for (const id of d.removed.keys()) documents.delete(id);
    return new AgentView(this.id, this.#agent, this.draft, { filter, documents, stamp, chunks: sum(documents) });
  }

  /** The agent's row as the request loaded it (not found: a 404), with a draft's mode and cut over it. */
  get agent(): Agent {
    const row = (this.#agent ??= getAgent(this.id));
    const s = this.draft?.settings;
    if (!s) return row;
    return {
      ...row,
      ...(s.retrieval_mode !== undefined ? { retrieval_mode: s.retrieval_mode } : {}),
      ...(s.cut !== undefined ? { max_distance: s.cut?.maxDistance ?? null, max_distance_model: s.cut?.model ?? null } : {}),
    };
  }

  /** Chunks of its ready documents. */
  readyChunkCount(): number {
    return (this.#readyChunks ??= this.chunkCountNow());
  }

  /** The same, read again from SQLite now (after a query: documents may have gone meanwhile). */
  chunkCountNow(): number {
    const scope = this.scope;
    if (scope) {
      // Its documents as resolved, unless the agent's ready set changed since: then those still shown.
      if (readyStamp(this.id) === scope.stamp) return scope.chunks;
      return sum(scope.documents, this.unfiltered().admitted(scope.documents.keys()));
    }
    const d = this.draft;
    return agentChunkCount(this.id) + (d ? sum(d.added) - sum(d.removed) : 0);
  }

  /** Vectors in the shared collection under this agent that no document of this view owns: a read asks for that many more. */
  hiddenVectors(): number {
    const d = this.draft;
    return hiddenVectorCount(this.id) + (d ? sum(d.removed) - sum(d.added) : 0);
  }

  /** Which of these documents this view shows: ready ones of the agent (less a draft's replaced and removed ones, plus its versions). */
  admitted(documentIds: Iterable<number>): Set<number> {
    const ids = [...documentIds];
    const d = this.draft;
    const ready = readyAmong(this.id, d ? ids.filter((id) => !d.removed.has(id) && !d.added.has(id)) : ids);
    if (d) for (const id of ids) if (d.added.has(id)) ready.add(id);
    if (this.scope) for (const id of ready) if (!this.scope.documents.has(id)) ready.delete(id);
    return ready;
  }

  /** Its ready documents of `model` as a value that changes whenever they do (lib/db/documents.ts); a draft's, with its own. */
  readySignature(model: string): string {
    let signature = this.#signatures.get(model);
    if (signature === undefined) {
      signature = readySignature(this.id, model) + (this.draft ? `|draft ${this.draft.id}@${this.draft.updatedAt}` : "");
      this.#signatures.set(model, signature);
    }
    return signature;
  }

  /** A value worked out once for this view (a draft's query-weighting counts, say), for the rest of the request. */
  memo<T>(key: string, make: () => T): T {
    if (!this.#memo.has(key)) this.#memo.set(key, make());
    return this.#memo.get(key) as T;
  }
}

/** What a draft changes in the set of documents a view shows. */
export interface DraftSet {
  id: number;
  updatedAt: string;
  /** Its staged versions (id to chunk count). */
  added: Map<number, number>;
  /** Served versions it replaces or removes (id to chunk count): the ones served under those names now. */
  removed: Map<number, number>;
  settings: DraftSettings;
}

/** A metadata filter and the documents of the view it matches (id to chunk count). */
export interface FilterScope {
  filter: Filter;
  documents: Map<number, number>;
  /** The agent's ready set when the filter was resolved (readyStamp), and the chunks of `documents`. */
  stamp: string;
  chunks: number;
}

/** The counts of `m`, or of those of its keys in `only`. */
const sum = (m: Map<number, number>, only?: Set<number>) => [...m.entries()].reduce((s, [id, n]) => s + (only && !only.has(id) ? 0 : n), 0);

function draftSet(agentId: number, draftId: number): DraftSet {
  const draft = getDraft(agentId, draftId);
  const docs = draftDocuments(draftId).filter((d) => d.status === "draft");
  const added = new Map(docs.map((d) => [d.id, d.chunk_count]));
  const removed = new Map<number, number>();
  // What publishing would retire: the version served under each name now (a draft whose base
  // changed meanwhile says so; its preview shows it over what is served today).
  const served = [...docs.map((d) => d.served_id), ...draftRemovals(draftId).map((r) => r.served_id)].filter(
    (id): id is number => id !== null,
  );
  for (const id of served) removed.set(id, servedChunkCount(id));
  return { id: draftId, updatedAt: draft.updated_at, added, removed, settings: draft.settings };
}

const servedChunkCount = (id: number): number =>
  (db().prepare("SELECT chunk_count FROM documents WHERE id = ? AND status = 'ready'").get(id) as { chunk_count: number } | undefined)
    ?.chunk_count ?? 0;

/** An agent as a caller holds it: its id, its loaded row, or its request's view. */
export type AgentRef = number | Agent | AgentView;

/** The agent's row: the one held, or loaded by id (not found: a 404). */
export const resolveAgent = (ref: AgentRef): Agent => AgentView.of(ref).agent;
