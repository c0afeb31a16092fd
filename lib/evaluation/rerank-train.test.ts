import { beforeAll, describe, expect, it } from "vitest";
import * as agentApi from "@/app/api/agents/[id]/route";
import * as train from "@/app/api/agents/[id]/reranker/train/route";
import * as search from "@/pages/api/agents/[id]/documents/search";
import { call } from "@/test/http";
import { ingest, newAgent } from "@/test/helpers";
import { createPair, deletePair } from "../db/pairs";
import { findModel, latestModel } from "../db/rerankers";
import { getAgent, updateAgent } from "../db/agents";
import { questionKey } from "../core/normalize";
import { rerankFor } from "../retrieval/rerank";
import { trainLinear } from "../rerank/linear";
import { FEATURES } from "../rerank/features";
import { agentsToRetrain, retrainChanged } from "./rerank-retrain";
import { foldPlan, foldsOf, type TrainingReport } from "./rerank-train";

// The learned reranker against a real Chroma and a real SQLite file, on two labeled sets made
// for it: one where questions are worded like each other and unlike their article (the labels
// carry what the text does not: the reranker must win on held-out questions), and one where
// the mode's order is already perfect (nothing to win: it must not be switched on).

const TOPICS = [
  ["router", "Restoring factory settings: hold the recessed button on the rear panel for ten seconds until the indicator blinks."],
  ["billing", "Invoices are issued on the first day of each period and can be downloaded from the account page as a document."],
  ["refunds", "A full reimbursement is available within thirty days; it reaches the original payment method within ten days."],
  ["shipping", "Parcels leave the warehouse within two business days; a tracking link arrives by email once it ships."],
  ["password", "Use the forgot link on the sign in page; the email link works for one hour, then request another."],
  ["deletion", "Closing an account removes its data after thirty days; an owner can restore it before that period ends."],
  ["sla", "Premium customers get a first response from the team within four business hours on working days."],
  ["export", "Every project can be downloaded as an archive of spreadsheets from the administration console."],
];
// Each article's questions share two words of their own that no article has, and otherwise
// only words that every article shares: the text cannot tell them apart, their siblings can.
const SLANG = [
  "zorbly quimp",
  "fenwick drazzle",
  "plonky marveth",
  "tibber snoog",
  "wuzzle grondle",
  "krimble yatch",
  "blenny frosk",
  "quaddle mirp",
];
const FILLER = ["how do i", "what about", "help with", "question on", "problem with", "need info on"];
const QUESTIONS = TOPICS.flatMap(([name], i) =>
  FILLER.slice(0, 5).map((f, j) => [`${f} ${SLANG[i]} ${j % 2 ? "please" : "today"}`, `${name}.md`]),
);

async function agentWith(name: string, pairs: string[][]) {
  const agent = newAgent(name);
  for (const [topic, text] of TOPICS) await ingest(agent.id, `${topic}.md`, `${text} Days, pages, links and accounts are covered.`);
  for (const [query, expected] of pairs) createPair(agent.id, { query, expected_filename: expected });
  return agent;
}

const trained = async (agentId: number, body: Record<string, unknown> = {}) => {
  const res = await call(train.POST, { params: { id: String(agentId) }, method: "POST", json: body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as TrainingReport;
};

let winner: { id: number };
let first: TrainingReport;

beforeAll(async () => {
  winner = await agentWith("rerank wins", QUESTIONS);
  first = await trained(winner.id);
}, 120_000);

describe("the learned reranker", () => {
  it("wins on questions held out from training, and is switched on", async () => {
    const cv = first.cross_validation;
    expect(cv.questions).toBe(QUESTIONS.length);
    expect(cv.with.mrr).toBeGreaterThan(cv.without.mrr);
    expect(cv.with.recall_at_k["3"]).toBeGreaterThan(cv.without.recall_at_k["3"]);
    expect(cv.wins).toBe(true);
    expect(first.switched_on).toBe(true);
    const agent = getAgent(winner.id);
    expect(agent.reranker).toBe("learned");
    expect(agent.reranker_model_id).toBe(first.model.version);
    expect(first.reason).toMatch(/^Switched on: it wins on 40 held-out questions/);
  });

  it("is deterministic: the same labels give the same model and the same ranks", async () => {
    const again = await trained(winner.id, { switch_on: false });
    expect(again.model.version).not.toBe(first.model.version);
    expect(findModel(winner.id, again.model.version)!.model).toEqual(findModel(winner.id, first.model.version)!.model);
    expect(again.cross_validation).toEqual(first.cross_validation);
    expect(again.held_out).toEqual(first.held_out);
    // And the search ranks alike with either.
    const query = { query: QUESTIONS[0][0], top_k: 5 };
    const a = await call(search.POST, { params: { id: String(winner.id) }, method: "POST", json: query });
    updateAgent(winner.id, { reranker_model_id: again.model.version });
    const b = await call(search.POST, { params: { id: String(winner.id) }, method: "POST", json: query });
    updateAgent(winner.id, { reranker_model_id: first.model.version });
    expect(b.body).toEqual(a.body);
  });

  it("never trains on a question it is tested on: a question that only its own label could place stays where the mode put it", async () => {
    // Words no article and no other label has: only its own label (if it leaked) could lift its article.
    const canary = "xylofrump wibbleshank gorp";
    const agent = await agentWith("rerank canary", [...QUESTIONS, [canary, "sla.md"], [`${canary.toUpperCase()}!`, "sla.md"]]);
    const report = await trained(agent.id, { switch_on: false });
    const held = report.held_out.filter((h) => questionKey(h.query) === questionKey(canary));
    expect(held).toHaveLength(2);
    // Both wordings of it are one question: one fold, never the other's training.
    expect(new Set(held.map((h) => h.fold)).size).toBe(1);
    for (const h of held) expect(h.with).not.toBe(1);
    // With the question in training (the served model), its own label does lift it.
    updateAgent(agent.id, { reranker: "learned", reranker_model_id: report.model.version });
    const res = await call(search.POST, { params: { id: String(agent.id) }, method: "POST", json: { query: canary, top_k: 1 } });
    expect(res.body.results[0].filename).toBe("sla.md");
  });

  it("keeps the search answer's shape: score is the raw distance, no reranker fields", async () => {
    const res = await call(search.POST, { params: { id: String(winner.id) }, method: "POST", json: { query: QUESTIONS[3][0], top_k: 3 } });
    expect(res.status).toBe(200);
    for (const r of res.body.results) {
      expect(Object.keys(r).sort()).toEqual(["chunk_index", "chunk_text", "document_id", "filename", "score"]);
      expect(r.score).toBeGreaterThanOrEqual(0);
      expect(r.score).toBeLessThanOrEqual(2);
    }
  });

  it("is not switched on when it does not beat the mode's order, and cannot be switched on by hand", async () => {
    // Each question is its article's own words: the vector order is already perfect.
    const agent = await agentWith(
      "rerank loses",
      TOPICS.flatMap(([name, text]) => [
        [text.split(" ").slice(0, 8).join(" "), `${name}.md`],
        [text.split(" ").slice(-8).join(" "), `${name}.md`],
      ]),
    );
    const report = await trained(agent.id);
    expect(report.cross_validation.without.mrr).toBe(1);
    expect(report.cross_validation.wins).toBe(false);
    expect(report.switched_on).toBe(false);
    expect(report.reason).toMatch(/^Not switched on: .* The agent keeps ranking without it\.$/);
    expect(getAgent(agent.id)).toMatchObject({ reranker: "none", reranker_model_id: null });
    const patched = await call(agentApi.PATCH, { params: { id: String(agent.id) }, method: "PATCH", json: { reranker: "learned" } });
    expect(patched.status).toBe(422);
    expect(patched.body.error.message).toMatch(/does not beat the vector order on questions it was not trained on/);
    expect(getAgent(agent.id).reranker).toBe("none");
  });

  it("is never used by another agent", async () => {
    const other = await agentWith("rerank other", []);
    const patched = await call(agentApi.PATCH, { params: { id: String(other.id) }, method: "PATCH", json: { reranker: "learned" } });
    expect(patched.status).toBe(422);
    expect(patched.body.error.message).toMatch(/No learned reranker has won its cross-validation for this agent yet/);
    // Even pointed at the first agent's model by hand, the other agent does not read it.
    updateAgent(other.id, { reranker: "learned", reranker_model_id: first.model.version });
    expect(findModel(other.id, first.model.version)).toBeUndefined();
    expect(rerankFor(getAgent(other.id))).toBeUndefined();
    expect(rerankFor(getAgent(winner.id))?.reranker.version).toBe(first.model.name);
  });

  it("trains again when the labels change, and only then", async () => {
    const before = getAgent(winner.id).reranker_model_id;
    expect(agentsToRetrain()).not.toContain(winner.id);
    const pair = createPair(winner.id, { query: `${FILLER[5]} ${SLANG[2]} tonight`, expected_filename: "refunds.md" });
    expect(agentsToRetrain()).toContain(winner.id);
    expect(await retrainChanged()).toContain(winner.id);
    const latest = latestModel(winner.id)!;
    expect(latest.labels).toBe(QUESTIONS.length + 1);
    expect(latest.id).toBeGreaterThan(before!);
    // It won again, so it serves now; with nothing changed since, nothing is trained.
    expect(getAgent(winner.id).reranker_model_id).toBe(latest.id);
    expect(agentsToRetrain()).not.toContain(winner.id);
    expect(await retrainChanged()).not.toContain(winner.id);
    // Back to the labels of the first model, for the tests after this one.
    deletePair(winner.id, pair.id);
    updateAgent(winner.id, { reranker_model_id: before });
  });

  it("refuses to train on too few labeled questions", async () => {
    const agent = await agentWith("rerank few", QUESTIONS.slice(0, 4));
    const res = await call(train.POST, { params: { id: String(agent.id) }, method: "POST", json: {} });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("no_pairs");
    expect(res.body.error.message).toMatch(/needs at least 10 labeled questions .* this agent has 4/);
  });
});

describe("training's parts", () => {
  it("deals each wording to one fold, and no fold trains on the questions it tests", () => {
    const keys = QUESTIONS.map(([q]) => questionKey(q));
    const folds = foldsOf([...keys, questionKey(`  ${QUESTIONS[0][0].toUpperCase()}?`)], 5);
    expect(folds.size).toBe(keys.length);
    const examples = keys.map((k) => ({ key: k, fold: folds.get(k)! }));
    const plan = foldPlan(examples, 5);
    expect(plan.flatMap((p) => p.test).length).toBe(examples.length);
    for (const { train, test } of plan) {
      const tested = new Set(test.map((e) => e.key));
      expect(train.some((e) => tested.has(e.key))).toBe(false);
      expect(test.length).toBeGreaterThanOrEqual(Math.floor(examples.length / 5));
    }
  });

  it("the linear model is the same to the last bit for the same questions", () => {
    const queries = Array.from({ length: 30 }, (_, q) => ({
      features: Array.from({ length: 10 }, (_, i) => FEATURES.map((_, j) => Math.sin(q * 7 + i * 3 + j))),
      positive: Array.from({ length: 10 }, (_, i) => i === q % 10),
    }));
    const a = trainLinear(FEATURES, queries);
    const b = trainLinear(FEATURES, queries);
    expect(a.weights.some((w) => w !== 0)).toBe(true);
    expect(b).toEqual(a);
  });
});
