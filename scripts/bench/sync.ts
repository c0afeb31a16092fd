// `npm run bench:sync [-- --pages 2000]`: a site sync's figures through the app's own code, on a
// real Chroma started in a temporary directory, from a fixture site on 127.0.0.1
// (test/fixture-site.ts) whose pages are help-centre articles of a few hundred words. Prints
// sync_new_2000_s (every page fetched, extracted, chunked, embedded and written),
// sync_unchanged_2000_s (every page asked again with its validators: 304s), the same with the
// site ignoring validators (every page fetched whole and found unchanged by its hash), and one
// edited page among the rest. FETCH_CONCURRENCY pages at once, no pacing (FETCH_RATE_PER_S=0);
// at the default pace of 10 pages a second a sync of 2,000 pages takes at least 200 s.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { startChroma } from "../chroma-server.mjs";
import { startFixtureSite } from "../../test/fixture-site";

const { values } = parseArgs({ options: { pages: { type: "string", default: "2000" } } });
const PAGES = Number(values.pages);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "kb-bench-sync-"));
const chroma = await startChroma({ dataDir: path.join(tmp, "chroma"), restart: false });
Object.assign(process.env, {
  DATA_DIR: path.join(tmp, "data"),
  CHROMA_URL: chroma.url,
  CHROMA_COLLECTION_PREFIX: "bench",
  EMBEDDING_PROVIDER: "local",
  KB_DEMO: "0",
  FETCH_RATE_PER_S: "0",
});
const site = await startFixtureSite();
// Its host and port: a bare name would stand for port 80 only.
process.env.FETCH_ALLOW_HOSTS = new URL(site.origin).host;
try {
  // Imported only now: lib/ reads the environment on first use.
  const { createAgent } = await import("../../lib/db/agents");
  const { createSource } = await import("../../lib/db/sources");
  const { syncSource } = await import("../../lib/sources/sync");
  const { embedder } = await import("../../lib/embeddings/configured");
  const { env } = await import("../../lib/env.mjs");
  await embedder().embed(["warm-up"]);

  const words =
    "account billing invoice refund shipping order password reset team seat plan export report integration slack email phone chat hours holiday warehouse parcel tracking label return credit card upgrade downgrade renewal contract admin permission role".split(
      " ",
    );
  const text = (i: number, version: number) =>
    Array.from(
      { length: 12 },
      (_, s) => `${Array.from({ length: 30 }, (_, w) => words[(i * 7 + s * 13 + w * 3 + version) % words.length]).join(" ")}.`,
    ).join(" ") + ` Article ${i}.`;
  const paths = Array.from({ length: PAGES }, (_, i) => `/help/articles/${i}.html`);
  paths.forEach((p, i) => site.pages.set(p, { body: site.article(`Article ${i}`, text(i, 0)) }));
  site.sitemap(paths);

  const agent = createAgent({ name: "Bench sync", tools: ["document_search"] });
  const source = createSource(agent.id, {
    kind: "sitemap",
    location: site.url("/sitemap.xml"),
    on_removed: "propose",
    interval_minutes: null,
  });
  const timed = async (label: string, note: string) => {
    const t0 = performance.now();
    const r = await syncSource(agent.id, source.id);
    const s = (performance.now() - t0) / 1000;
    console.log(
      `${label.padEnd(34)} ${s.toFixed(2).padStart(7)}   (${note}: ${r.seen} seen, ${r.added} added, ${r.changed} changed, ${r.unchanged} unchanged, ${r.failed} failed)`,
    );
    if (r.failed > 0) console.log("  failures:", r.failures.slice(0, 3));
  };
  console.log(`${PAGES} pages, ${env().FETCH_CONCURRENCY} at once, ${embedder().model}, fixture site on 127.0.0.1\n`);
  await timed(`sync_new_${PAGES}_s`, "first import");
  await timed(`sync_unchanged_${PAGES}_s`, "conditional requests, 304");
  site.options.validators = false;
  const requests = site.requests.length;
  await timed(`sync_unchanged_${PAGES}_s_no_validators`, "whole pages, same hash");
  console.log(`  (the site answered ${site.requests.length - requests} requests in that sync)`);
  site.options.validators = true;
  site.pages.set(paths[0]!, { body: site.article("Article 0", text(0, 1)) });
  await timed(`sync_one_changed_of_${PAGES}_s`, "one page edited");
} finally {
  await site.close();
  await chroma.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}
