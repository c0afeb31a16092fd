import { connection } from "next/server";
import { cachedHealth } from "@/lib/index-upkeep/health";
import { currentIdentity } from "@/lib/auth";

/** Says plainly when search cannot work, instead of letting every page fail its own way. */
export async function HealthBanner() {
  // Health is a request-time fact; without this the build would probe it while prerendering.
  await connection();
  // Errors, counts and model names are for signed-in users, as in /api/health: the sign-in page shows none.
  if (!(await currentIdentity())) return null;
  // Shared by renders for a few seconds: a check embeds a probe and queries Chroma.
  const health = await cachedHealth();
  const problems = [health.chroma.error, health.embedder.error].filter(Boolean);
  if (health.stale_models.length > 0) {
    problems.push(
      `Some documents were embedded with ${health.stale_models.join(", ")}, not ${health.embedder.model}; run \`npm run reindex\`.`,
    );
  }
  const { stuck_documents: stuck, awaiting_cleanup: waiting } = health.index;
  if (stuck > 0) problems.push(`${stuck} document(s) stopped while indexing; open Index health to repair.`);
  // Removals are retried on their own; worth a word only while Chroma keeps refusing them.
  if (waiting > 0 && !health.chroma.ok) problems.push(`${waiting} vector removal(s) are waiting for Chroma and will be retried.`);
  const { recheck, rebuild } = health.index;
  const checking =
    rebuild.state === "running"
      ? `Rebuilding the vector index (${rebuild.reason}): ${rebuild.copied.toLocaleString("en")} of ${rebuild.total.toLocaleString("en")} vectors copied. ` +
        "Search, uploads and removals go on meanwhile."
      : recheck.state === "idle"
        ? null
        : `Chroma came back from a crash: checking the recently written chunks (${recheck.checked.toLocaleString("en")} of ${recheck.total.toLocaleString("en")} checked` +
          `${recheck.rewritten > 0 ? `, ${recheck.rewritten.toLocaleString("en")} written again` : ""}). Searches rank those chunks exactly until they are checked.`;
  if (problems.length === 0 && !checking) return null;
  return (
    <>
      {problems.length > 0 && (
        <div role="alert" className="border-b border-red-200 bg-red-50">
          <div className="mx-auto max-w-6xl px-4 py-2 text-sm text-red-800 sm:px-6">
            {problems.map((p) => (
              <p key={p}>{p}</p>
            ))}
          </div>
        </div>
      )}
      {checking && (
        <div aria-live="polite" data-testid="index-check" className="border-b border-amber-200 bg-amber-50">
          <p className="mx-auto max-w-6xl px-4 py-2 text-sm text-amber-900 sm:px-6">{checking}</p>
        </div>
      )}
    </>
  );
}
