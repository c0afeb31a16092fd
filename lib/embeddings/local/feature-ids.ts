import { stem } from "./stemmer";
import { fmix32, fnv1a, SEED_WORD } from "./text-features";

/** Feature groups; a feature's id mixes its key with its group's tag. */
export const GROUP_WORD = 0;
export const GROUP_BIGRAM = 1;
export const GROUP_CHARGRAM = 2;
/** Words that have a word vector (the semantic part); keys are word-vector entries. */
export const GROUP_KNOWN = 3;
export type FeatureGroup = typeof GROUP_WORD | typeof GROUP_BIGRAM | typeof GROUP_CHARGRAM | typeof GROUP_KNOWN;
const GROUP_TAGS = [0, 0x51ed27f3, 0x2c1b3c6d, 0x297a2d39] as const;

/**
 * A 32-bit id for a feature of a group, as the per-agent counts key it. Two features of an
 * agent share an id with a chance of about (features / 2³²): their counts then add up, which
 * only makes both a little less weighty.
 */
export function featureId(key: number, group: FeatureGroup): number {
  return group === GROUP_WORD ? key : fmix32(key ^ GROUP_TAGS[group]);
}

/** The id of a single word's word feature (tests and diagnostics). */
export function wordFeatureId(word: string): number {
  return featureId(fmix32(fnv1a(stem(word.normalize("NFKC").toLowerCase()), SEED_WORD)), GROUP_WORD);
}
