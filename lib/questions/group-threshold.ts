/**
 * Near-duplicate questions share a group when the cosine distance between a new wording and the
 * group's first wording is at most this. Measured by `npm run bench:questions` on 27 questions in
 * three wordings each, over nine support subjects: with the local embedder 0.35 groups more
 * wordings of one question than 0.30 without grouping more different questions of one subject,
 * and 0.45 groups more of both (docs/evaluation.md, 'Questions from the log'). Merging
 * two questions hides one, so the threshold favours keeping them apart; QUESTION_GROUP_DISTANCE
 * in the environment sets another value (another model).
 */
export const QUESTION_GROUP_DISTANCE = 0.35;
