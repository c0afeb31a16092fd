const STOP = new Set(["the", "and", "for", "are", "how", "what", "who", "why", "can", "does", "with", "you", "your", "our", "a", "an", "of", "to", "in", "is", "it", "on", "do", "my"]);

function escape(s: string) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The chunk text with the query's words marked, so a reader sees what matched literally. */
export function Highlight({ text, query }: { text: string; query: string }) {
  const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [])].filter((w) => !STOP.has(w));
  if (words.length === 0) return <>{text}</>;
  const re = new RegExp(`(${words.sort((a, b) => b.length - a.length).map(escape).join("|")})`, "giu");
  return (
    <>
      {text.split(re).map((part, i) =>
        i % 2 === 1 ? (
          <mark key={i} className="rounded-sm bg-yellow-200 px-0.5">
            {part}
          </mark>
        ) : (
          part
        ),
      )}
    </>
  );
}
