/**
 * Near-duplicate questions share a group when the cosine distance between a new wording and the
 * group's first wording is at most this. Measured by `npm run bench:questions` on 27 questions in
 * three wordings each, over nine support subjects: with the local embedder 0.35 groups 36% of the
 * pairs of wordings of one question and 2.5% of the pairs of different questions of one subject
 * (0.45: 51% and 6.2%). Merging two questions hides one, so the threshold favours keeping them
 * apart; QUESTION_GROUP_DISTANCE in the environment sets another value (another model).
 */
export const QUESTION_GROUP_DISTANCE = 0.35;
