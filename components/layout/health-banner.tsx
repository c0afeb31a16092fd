import { connection } from "next/server";
import { checkHealth } from "@/lib/health";

/** Says plainly when search cannot work, instead of letting every page fail its own way. */
export async function HealthBanner() {
  // Health is a request-time fact; without this the build would probe it while prerendering.
  await connection();
  const health = await checkHealth();
  const problems = [health.chroma.error, health.embedder.error].filter(Boolean);
  if (health.stale_models.length > 0) {
    problems.push(
      `Some documents were embedded with ${health.stale_models.join(", ")}, not ${health.embedder.model}; run \`npm run reindex\`.`,
    );
  }
  if (problems.length === 0) return null;
  return (
    <div role="alert" className="border-b border-red-200 bg-red-50">
      <div className="mx-auto max-w-6xl px-6 py-2 text-sm text-red-800">
        {problems.map((p) => (
          <p key={p}>{p}</p>
        ))}
      </div>
    </div>
  );
}
