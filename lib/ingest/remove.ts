import "server-only";
import { deleteAgentRow, getAgent } from "../db/agents";
import { forgetAgent, forgetDocument } from "../retrieval/corpus-stats";
import { deleteDocumentRow, getDocument } from "../db/documents";
import { embedder } from "../embeddings/configured";
import { cleanupNow } from "./cleanup";

// The row goes first, with its vectors queued for removal in the same transaction: the
// document is gone for every reader at once, and the vectors follow as soon as Chroma
// confirms (now, or on a retry if Chroma is down). Ids are never reused, so a vector
// awaiting removal can never be taken for another document's.

export async function removeDocument(agentId: number, documentId: number): Promise<void> {
  const doc = getDocument(agentId, documentId);
  await forgetDocument(agentId, doc, embedder());
  deleteDocumentRow(agentId, doc.id);
  await cleanupNow();
}

export async function removeAgent(agentId: number): Promise<void> {
  getAgent(agentId);
  deleteAgentRow(agentId);
  forgetAgent(agentId);
  await cleanupNow();
}
