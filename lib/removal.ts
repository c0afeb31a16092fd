import "server-only";
import { deleteAgentRow, getAgent } from "./agents";
import { ownCollections } from "./chroma";
import { forgetAgent, forgetDocument } from "./corpus-stats";
import { deleteDocumentRow, getDocument } from "./documents";
import { embedder } from "./embedder";
import { deleteAgentVectors, deleteDocumentVectors } from "./vectors";

// Vectors go first: if Chroma fails, the row stays and the delete can be retried.
// Every collection is visited because a document may predate the current model.

export async function removeDocument(agentId: number, documentId: number): Promise<void> {
  const doc = getDocument(agentId, documentId);
  for (const collection of await ownCollections()) await deleteDocumentVectors(collection, agentId, doc.id);
  await forgetDocument(agentId, doc, embedder());
  deleteDocumentRow(agentId, doc.id);
}

export async function removeAgent(agentId: number): Promise<void> {
  getAgent(agentId);
  for (const collection of await ownCollections()) await deleteAgentVectors(collection, agentId);
  deleteAgentRow(agentId);
  forgetAgent(agentId);
}
