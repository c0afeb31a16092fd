import fs from "node:fs";
import path from "node:path";

/**
 * The embedded Chroma of the spec run's app (Playwright's `webServer`), reached directly:
 * for tests that must break the index or stop the vector store for real.
 */
export interface SpecChroma {
  url: string;
  pid: number;
}

/**
 * Finds the Chroma server of an app by its data directory (`<dataDir>/chroma`) in
 * `/proc/<pid>/cmdline` (`node …/chromadb/dist/cli.mjs run --path <dir> --host <h> --port <n>`).
 * Its watchdog's command line repeats those arguments; that process is skipped, since
 * stopping it would leave Chroma answering. Null when none is running.
 */
export function findChroma(dataDir: string): SpecChroma | null {
  const marker = path.join(dataDir, "chroma");
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let args: string[];
    try {
      args = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
    } catch {
      continue; // gone meanwhile, or not ours to read
    }
    const run = args.indexOf("run");
    if (run < 1 || !args[run - 1].endsWith("cli.mjs") || args.some((a) => a.endsWith("watchdog.mjs"))) continue;
    const arg = (name: string) => {
      const i = args.indexOf(name, run);
      return i > 0 ? args[i + 1] : undefined;
    };
    if (arg("--path") !== marker) continue;
    const port = Number(arg("--port"));
    if (!Number.isInteger(port) || port <= 0) continue;
    return { url: `http://${arg("--host") ?? "127.0.0.1"}:${port}`, pid: Number(entry) };
  }
  return null;
}

/** The embedded Chroma of the spec run's app (Playwright's `webServer`). */
export function specChroma(): SpecChroma {
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir) throw new Error("E2E_DATA_DIR is not set: run the specs through playwright.config.ts");
  const found = findChroma(dataDir);
  if (!found) throw new Error(`No Chroma server with --path ${path.join(dataDir, "chroma")} is running`);
  return found;
}

const COLLECTIONS = "/api/v2/tenants/default_tenant/databases/default_database/collections";

export interface ChromaCollection {
  id: string;
  name: string;
  metadata: Record<string, unknown> | null;
}

async function chromaJson<T>(url: string, init?: { method: string; body: unknown }): Promise<T> {
  const res = await fetch(url, {
    method: init?.method ?? "GET",
    headers: init ? { "content-type": "application/json" } : undefined,
    body: init ? JSON.stringify(init.body) : undefined,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`Chroma ${init?.method ?? "GET"} ${url} answered ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

/** The app's collection (prefix `kb-`) for one embedding model, through Chroma's REST API v2. */
export async function appCollection(chroma: SpecChroma, embeddingModel: string, prefix = "kb-"): Promise<ChromaCollection> {
  const all = await chromaJson<ChromaCollection[]>(`${chroma.url}${COLLECTIONS}?limit=1000`);
  // Not a rebuild's copy or the original it replaced (lib/index-upkeep/rebuild.ts).
  const found = all.find(
    (c) => c.name.startsWith(prefix) && !/\.(rebuild|old)$/.test(c.name) && c.metadata?.embedding_model === embeddingModel,
  );
  if (!found) throw new Error(`No collection for ${embeddingModel} among ${all.map((c) => c.name).join(", ")}`);
  return found;
}

/** `POST …/collections/{id}/delete`: removes vectors behind the app's back. */
export function deleteVectors(chroma: SpecChroma, collection: ChromaCollection, body: { ids?: string[]; where?: Record<string, unknown> }) {
  return chromaJson<unknown>(`${chroma.url}${COLLECTIONS}/${collection.id}/delete`, { method: "POST", body });
}

/** `POST …/collections/{id}/add`: writes vectors behind the app's back. */
export function addVectors(
  chroma: SpecChroma,
  collection: ChromaCollection,
  body: { ids: string[]; embeddings: number[][]; metadatas: Record<string, string | number>[]; documents: string[] },
) {
  return chromaJson<unknown>(`${chroma.url}${COLLECTIONS}/${collection.id}/add`, { method: "POST", body });
}

/** `POST …/collections/{id}/get`: the ids of the vectors matching `where`. */
export async function vectorIds(chroma: SpecChroma, collection: ChromaCollection, where: Record<string, unknown>): Promise<string[]> {
  const res = await chromaJson<{ ids: string[] }>(`${chroma.url}${COLLECTIONS}/${collection.id}/get`, {
    method: "POST",
    body: { where, include: [] },
  });
  return res.ids;
}
