// Measures the question-grouping threshold (lib/questions/group.ts): cosine distances, with the
// local embedder, between wordings of one question and between different questions of one
// subject (scripts/bench/question-wordings.ts), and how many of each a threshold groups.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "kb-bench-questions-"));
process.env.DATA_DIR = tmp;
process.env.EMBEDDING_PROVIDER = "local";
const { LocalEmbedder } = await import("../../lib/embeddings/local/embedder");
const { unitQuery } = await import("../../lib/retrieval/exact-kernel");
const { QUESTION_WORDINGS } = await import("./question-wordings");
const { QUESTION_GROUP_DISTANCE } = await import("../../lib/questions/group-threshold");

const embedder = new LocalEmbedder({ log: () => {} });
const distance = (a: Float32Array, b: Float32Array) => 1 - a.reduce((s, v, i) => s + v * b[i], 0);

const same: number[] = [];
const other: number[] = [];
for (const questions of Object.values(QUESTION_WORDINGS)) {
  const vectors = (await embedder.embed(questions.flat())).map(unitQuery);
  const question = questions.flatMap((w, q) => w.map(() => q));
  for (let i = 0; i < vectors.length; i++) {
    for (let j = i + 1; j < vectors.length; j++) (question[i] === question[j] ? same : other).push(distance(vectors[i], vectors[j]));
  }
}
const rate = (xs: number[], t: number) => xs.filter((d) => d <= t).length / xs.length;
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
console.log(`${embedder.model}: ${same.length} pairs of wordings of one question, ${other.length} pairs of different questions of one subject\n`);
console.log("threshold  wordings grouped  different grouped");
for (const t of [0.2, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7]) {
  console.log(`${t.toFixed(2).padStart(9)}  ${pct(rate(same, t)).padStart(16)}  ${pct(rate(other, t)).padStart(17)}${t === QUESTION_GROUP_DISTANCE ? "  <- QUESTION_GROUP_DISTANCE" : ""}`);
}
fs.rmSync(tmp, { recursive: true, force: true });
