import type { QueryWord } from "@/lib/embeddings";
import { groupQueryWords } from "@/lib/embeddings/query-word-groups";
import { plural } from "@/lib/format/plural";

function Word({ w, totalChunks }: { w: QueryWord; totalChunks: number }) {
  const missing = w.chunks === 0;
  return (
    <li
      data-testid="query-word"
      title={
        missing
          ? "No chunk has this word: it can only match through a similar spelling or meaning."
          : `In ${w.chunks} of ${plural(totalChunks, "chunk")}; its features are multiplied by ${w.weight.toFixed(2)}.`
      }
      className={`rounded border px-2 py-0.5 ${missing ? "border-amber-300 bg-amber-50" : "border-slate-300 bg-slate-50"}`}
    >
      <span className="font-medium">{w.word}</span>
      {!missing && (
        <>
          {" "}
          <span className="font-mono text-xs text-slate-600">×{w.weight.toFixed(2)}</span>{" "}
          <span className="text-xs text-slate-600">
            in {w.chunks} of {totalChunks}
          </span>
        </>
      )}
    </li>
  );
}

/**
 * How much each word of the query counts for this agent: the local embedder weights a word by how
 * rare it is among the agent's chunks, so a word every chunk has barely matters. A word no chunk
 * has gets the largest factor but matches no chunk's spelling, so it is listed apart.
 */
export function QueryWords({ words, totalChunks }: { words: QueryWord[]; totalChunks: number }) {
  if (words.length === 0) return null;
  const { inChunks, inNoChunk } = groupQueryWords(words);
  return (
    <section aria-label="Word weights" className="space-y-2 rounded border border-slate-200 bg-white p-3 text-sm">
      <h2 className="font-medium">
        Word weights{" "}
        <span className="font-normal text-slate-600">
          (rarer among this agent&apos;s {plural(totalChunks, "chunk")} counts more; highest first)
        </span>
      </h2>
      {inChunks.length > 0 && (
        <ul aria-label="Words in the chunks" className="flex flex-wrap gap-2">
          {inChunks.map((w) => (
            <Word key={w.word} w={w} totalChunks={totalChunks} />
          ))}
        </ul>
      )}
      {inNoChunk.length > 0 && (
        <div className="flex flex-wrap items-baseline gap-2">
          <p id="words-in-no-chunk" className="text-xs text-slate-600">
            Not in any chunk: can only match by meaning (or a similar spelling)
          </p>
          <ul aria-labelledby="words-in-no-chunk" className="flex flex-wrap gap-2">
            {inNoChunk.map((w) => (
              <Word key={w.word} w={w} totalChunks={totalChunks} />
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
