export {};
// Run as a child process by the backup tests: searches an agent of the DATA_DIR it is given,
// through the app's ranking and through Chroma's query alone, and prints both as JSON.
// Usage: DATA_DIR=... CHROMA_URL=... node --conditions=react-server --import tsx test/search-data-dir.ts <agentId> <query>...
const [agentId, ...queries] = process.argv.slice(2);
const { retrieve } = await import("../lib/retrieval/retrieve");
const { embedder } = await import("../lib/embeddings/configured");
const { collectionFor } = await import("../lib/vector-store/client");
const { queryAgent } = await import("../lib/retrieval/index-candidates");
const { auditIndex } = await import("../lib/index-upkeep/audit");
const id = Number(agentId);
const served = await retrieve(id, queries, { topK: 5 });
const vectors = await embedder().embed(queries);
const chroma = await queryAgent(await collectionFor(embedder()), id, vectors, 5);
const audit = await auditIndex();
console.log(JSON.stringify({ served, chroma, auditOk: audit.ok }));
