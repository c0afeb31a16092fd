import type { QueryWord } from "@/lib/embeddings";

/**
 * How much each word of the query counts for this agent: the local embedder weights a word by how
 * rare it is among the agent's chunks, so a word every chunk has barely matters, and a word no
 * chunk has can only match through a similar spelling or meaning.
 */
export function QueryWords({ words, totalChunks }: { words: QueryWord[]; totalChunks: number }) {
  if (words.length === 0) return null;
  return (
    <section aria-label="Word weights" className="rounded border border-slate-200 bg-white p-3 text-sm">
      <h2 className="mb-2 font-medium">
        Word weights <span className="font-normal text-slate-600">(rarer among this agent&apos;s {totalChunks} chunks counts more)</span>
      </h2>
      <ul className="flex flex-wrap gap-2">
        {words.map((w) => (
          <li
            key={w.word}
            data-testid="query-word"
            title={
              w.chunks === 0
                ? "No chunk has this word: it can only match through a similar spelling or meaning."
                : `In ${w.chunks} of ${totalChunks} chunks; its features are multiplied by ${w.weight.toFixed(2)}.`
            }
            className={`rounded border px-2 py-0.5 ${w.chunks === 0 ? "border-amber-300 bg-amber-50" : "border-slate-300 bg-slate-50"}`}
          >
            <span className="font-medium">{w.word}</span>{" "}
            <span className="font-mono text-xs text-slate-600">×{w.weight.toFixed(2)}</span>{" "}
            <span className="text-xs text-slate-600">{w.chunks === 0 ? "in no chunk" : `in ${w.chunks} of ${totalChunks}`}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
