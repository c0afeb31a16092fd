/** Said once near distances: tools that score higher-is-better lead readers to expect the opposite. */
export function DistanceNote() {
  return <p className="text-xs text-slate-500">Distance: lower is closer.</p>;
}
