import "server-only";
import { getAgent, type Agent } from "./agents";
import { agentChunkCount, readySignature } from "./documents";

/**
 * What one request knows of its agent, resolved once: the agent's row (its settings: tools, the
 * no-match cut, the retrieval mode, question logging) and facts about its ready documents, each
 * read from SQLite when first asked for and kept for the rest of the request. withAgent
 * (lib/http/route.ts) makes one per request; a caller holding an id makes one with AgentView.of.
 * Retrieval and ingest take it instead of an id, so they do not look the same facts up again.
 * Never kept past its request: a fact that must be seen as it is now (after a query, say) is read
 * again from SQLite where that matters, and the code says why there.
 */
export class AgentView {
  #agent: Agent | undefined;
  #readyChunks: number | undefined;
  readonly #signatures = new Map<string, string>();

  private constructor(
    readonly id: number,
    agent?: Agent,
  ) {
    this.#agent = agent;
  }

  /** The view itself, a view over a loaded row, or one over an id whose row is loaded when first asked for. */
  static of(ref: AgentRef): AgentView {
    if (typeof ref === "number") return new AgentView(ref);
    // By shape, not instanceof: a bundle that loaded its own copy of this module may have made it.
    return "readyChunkCount" in ref ? ref : new AgentView(ref.id, ref);
  }

  /** The agent's row as the request loaded it (not found: a 404). */
  get agent(): Agent {
    return (this.#agent ??= getAgent(this.id));
  }

  /** Chunks of its ready documents. */
  readyChunkCount(): number {
    return (this.#readyChunks ??= agentChunkCount(this.id));
  }

  /** Its ready documents of `model` as a value that changes whenever they do (lib/db/documents.ts). */
  readySignature(model: string): string {
    let signature = this.#signatures.get(model);
    if (signature === undefined) this.#signatures.set(model, (signature = readySignature(this.id, model)));
    return signature;
  }
}

/** An agent as a caller holds it: its id, its loaded row, or its request's view. */
export type AgentRef = number | Agent | AgentView;

/** The agent's row: the one held, or loaded by id (not found: a 404). */
export const resolveAgent = (ref: AgentRef): Agent => AgentView.of(ref).agent;
