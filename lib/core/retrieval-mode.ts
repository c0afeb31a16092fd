/** How an agent's search ranks chunks (lib/retrieval/modes.ts); `vector` is the default. */
export const RETRIEVAL_MODES = ["vector", "keyword", "hybrid"] as const;
export type RetrievalMode = (typeof RETRIEVAL_MODES)[number];
