/** The search reads every served chunk: on a large agent the page takes seconds, and says so meanwhile. */
export default function CollisionsLoading() {
  return (
    <p role="status" className="text-sm text-slate-600">
      Searching the served documents for collisions…
    </p>
  );
}
