// `npm run bench:questions`: the Questions tab's figures. (1) The grouping threshold
// (lib/questions/group-threshold.ts): cosine distances, with the local embedder, between
// wordings of one question and between different questions of one subject
// (scripts/bench/question-wordings.ts), and how many of each a threshold groups. (2) The time to
// group 10,000 logged questions and to replay 1,000, through the app's own code on a real Chroma
// started in a temporary directory, over the demo articles.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startChroma } from "../chroma-server.mjs";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "kb-bench-questions-"));
const chroma = await startChroma({ dataDir: path.join(tmp, "chroma"), restart: false });
Object.assign(process.env, {
  DATA_DIR: path.join(tmp, "data"),
  CHROMA_URL: chroma.url,
  CHROMA_COLLECTION_PREFIX: "bench",
  EMBEDDING_PROVIDER: "local",
  KB_DEMO: "0",
});
try {
  // Imported only now: lib/ reads the environment on first use.
  const { embedder } = await import("../../lib/embeddings/configured");
  const { unitQuery } = await import("../../lib/retrieval/exact-kernel");
  const { QUESTION_WORDINGS } = await import("./question-wordings");
  const { QUESTION_GROUP_DISTANCE } = await import("../../lib/questions/group-threshold");
  const { createAgent } = await import("../../lib/db/agents");
  const { ingestFile } = await import("../../lib/ingest/pipeline");
  const { retrieve } = await import("../../lib/retrieval/retrieve");
  const { logToolCall } = await import("../../lib/db/tool-calls");
  const { refusedByCut } = await import("../../lib/core/trace");
  const { groupQuestions } = await import("../../lib/questions/group");
  const { listQuestions } = await import("../../lib/questions/list");
  const { replayQuestions } = await import("../../lib/questions/replay");
  type Trace = import("../../lib/core/trace").RetrievalTrace;

  // (1) The threshold.
  const distance = (a: Float32Array, b: Float32Array) => 1 - a.reduce((s, v, i) => s + v * b[i], 0);
  const same: number[] = [];
  const other: number[] = [];
  for (const questions of Object.values(QUESTION_WORDINGS)) {
    const vectors = (await embedder().embed(questions.flat())).map(unitQuery);
    const question = questions.flatMap((w, q) => w.map(() => q));
    for (let i = 0; i < vectors.length; i++) {
      for (let j = i + 1; j < vectors.length; j++) (question[i] === question[j] ? same : other).push(distance(vectors[i], vectors[j]));
    }
  }
  const rate = (xs: number[], t: number) => xs.filter((d) => d <= t).length / xs.length;
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  console.log(
    `${embedder().model}: ${same.length} pairs of wordings of one question, ${other.length} pairs of different questions of one subject\n`,
  );
  console.log("threshold  wordings grouped  different grouped");
  for (const t of [0.2, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7]) {
    console.log(
      `${t.toFixed(2).padStart(9)}  ${pct(rate(same, t)).padStart(16)}  ${pct(rate(other, t)).padStart(17)}${t === QUESTION_GROUP_DISTANCE ? "  <- QUESTION_GROUP_DISTANCE" : ""}`,
    );
  }

  // (2) 10,000 logged questions: the labeled wordings with greetings and endings, asked again in
  // other cases and punctuation (about 4,000 distinct after normalising).
  const agent = createAgent({ name: "Bench questions", tools: ["document_search"] });
  const demo = path.join(import.meta.dirname, "../../demo");
  for (const file of fs.readdirSync(demo).filter((f) => f.endsWith(".md"))) {
    await ingestFile(agent.id, { filename: file, bytes: fs.readFileSync(path.join(demo, file)) }, { chunkSize: 800, chunkOverlap: 100 });
  }
  const wordings = Object.values(QUESTION_WORDINGS).flat(2);
  const openers = [
    "",
    "hi ",
    "hello, ",
    "quick question: ",
    "please tell me ",
    "hey team - ",
    "question: ",
    "urgent: ",
    "can you help? ",
    "good morning, ",
  ];
  const endings = ["", " thanks", " please", " asap", " thank you"];
  const LOGGED = 10_000;
  const asked = Array.from({ length: LOGGED }, (_, i) => {
    const text = `${openers[(i >> 3) % openers.length]}${wordings[i % wordings.length]}${endings[(i >> 6) % endings.length]}`;
    return i % 3 === 0 ? text.toUpperCase() : i % 3 === 1 ? `${text}?` : text;
  });
  const started = performance.now();
  for (let i = 0; i < asked.length; i += 50) {
    const batch = asked.slice(i, i + 50);
    const trace: Trace[] = [];
    const results = await retrieve(agent.id, batch, { topK: 5, trace });
    batch.forEach((query, j) =>
      logToolCall({
        agentId: agent.id,
        tool: "document_search",
        input: { query, top_k: 5 },
        ok: true,
        latencyMs: 0,
        resultCount: results[j].length,
        retrieval: trace[j],
        refused: refusedByCut(trace[j]),
      }),
    );
  }
  const logSeconds = (performance.now() - started) / 1000;
  const seconds = async (work: () => Promise<unknown>) => {
    const t = performance.now();
    await work();
    return (performance.now() - t) / 1000;
  };
  const group = await seconds(() => groupQuestions(agent.id));
  let listed = 0;
  const list = await seconds(async () => (listed = (await listQuestions(agent.id, {})).questions.length));
  let replayed = 0;
  const replay = await seconds(async () => (replayed = (await replayQuestions(agent.id, { limit: 1000 })).summary.replayed));
  // The worst case for grouping: 10,000 questions, every one its own wording, most far apart
  // (words drawn from the demo articles), so nearly each one is compared with every group before it.
  const vocabulary = [
    ...new Set(
      fs
        .readdirSync(demo)
        .filter((f) => f.endsWith(".md"))
        .flatMap(
          (f) =>
            fs
              .readFileSync(path.join(demo, f), "utf8")
              .toLowerCase()
              .match(/[a-z]{4,}/g) ?? [],
        ),
    ),
  ];
  const spread = createAgent({ name: "Bench distinct questions", tools: ["document_search"] });
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const words = (n: number) => Array.from({ length: n }, () => vocabulary[Math.floor(next() * vocabulary.length)]).join(" ");
  for (let i = 0; i < LOGGED; i++) {
    logToolCall({
      agentId: spread.id,
      tool: "document_search",
      input: { query: `how ${words(4)} ${i}`, top_k: 5 },
      ok: true,
      latencyMs: 0,
      resultCount: 0,
    });
  }
  const groupSpread = await seconds(() => groupQuestions(spread.id));
  const { db } = await import("../../lib/db/client");
  const spreadGroups = (db().prepare("SELECT COUNT(*) AS n FROM question_groups WHERE agent_id = ?").get(spread.id) as { n: number }).n;
  const counts = db()
    .prepare(
      "SELECT (SELECT COUNT(*) FROM question_keys WHERE agent_id = @a) AS keys, (SELECT COUNT(*) FROM question_groups WHERE agent_id = @a) AS groups",
    )
    .get({ a: agent.id }) as { keys: number; groups: number };
  console.log(
    `\n${LOGGED} questions logged (${logSeconds.toFixed(1)} s, searched 50 at a time): ${counts.keys} distinct wordings in ${counts.groups} groups`,
  );
  console.log(`questions_group_10k_s  ${group.toFixed(2)}   (embed every distinct wording once and group it)`);
  console.log(`questions_list_s       ${list.toFixed(2)}   (the tab's listing once grouped: ${listed} rows)`);
  console.log(
    `questions_group_10k_distinct_s  ${groupSpread.toFixed(2)}   (10,000 distinct wordings of ${vocabulary.length} words: ${spreadGroups} groups)`,
  );
  console.log(`replay_1000_s          ${replay.toFixed(2)}   (${replayed} logged questions searched again and compared)`);
} finally {
  await chroma.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}
