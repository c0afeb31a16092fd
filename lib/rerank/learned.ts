import type { RerankerModel } from "../core/rerankers";
import { poolFeatures, type FeatureCandidate } from "./features";
import { scoreLinear, topShares } from "./linear";
import type { Reranker } from "./types";

/** The version a run and the inspector name a learned model by. */
export const learnedVersion = (m: Pick<RerankerModel, "id" | "labels">) => `learned v${m.id} (${m.labels} labels)`;

/** A trained model as a reranker: its linear score over the candidates' features, with the three that moved each most. */
export function learnedReranker(m: RerankerModel): Reranker {
  return {
    name: "learned",
    version: learnedVersion(m),
    async score(query, vector, pool) {
      const rows = poolFeatures({ text: query, vector }, pool as FeatureCandidate[], m.label_index);
      return rows.map((x) => ({ score: scoreLinear(m.model, x), features: topShares(m.model, x) }));
    },
  };
}
