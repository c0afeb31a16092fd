/** Names up to this long fit a phone screen on one line; longer ones may wrap. */
const ONE_LINE = 36;

/** A filename that never breaks at its hyphens unless it is too long for one line; then it breaks where it must. */
export function FileName({ name }: { name: string }) {
  return <span className={name.length > ONE_LINE ? "[overflow-wrap:anywhere]" : "whitespace-nowrap"}>{name}</span>;
}
