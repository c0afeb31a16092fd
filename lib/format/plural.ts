/** A count with its noun: "1 chunk", "3 chunks", "1,200 chunks"; `many` for nouns that do not take an "s". */
export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en")} ${n === 1 ? one : many}`;
