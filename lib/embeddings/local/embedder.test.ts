import { describe, expect, it } from "vitest";
import type { CorpusStats } from "../types";
import { LOCAL_DIMENSION, LOCAL_MODEL, LocalEmbedder, modelName, stem, wordFeatureId, type LocalModelSpec } from "./embedder";
import { CountTable } from "./text-features";

const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);
const norm = (v: number[]) => Math.sqrt(cosine(v, v));

const PARAGRAPHS = {
  sla:
    "Our support team responds to Priority 1 incidents within 1 hour, 24/7. Priority 2 tickets get a " +
    "first response within 4 business hours, and all other requests within one business day. Uptime is " +
    "guaranteed at 99.9% per calendar month; service credits apply when we miss it.",
  refunds:
    "Refunds are issued to the original payment method once we receive and inspect the returned item. " +
    "Processing usually takes 5 to 7 business days, although some banks need up to 10 days to show the " +
    "credit on your statement.",
  password:
    "To reset your password, click 'Forgot password' on the sign-in page and enter the email address on " +
    "your account. We'll send a reset link that expires after 30 minutes. If the email doesn't arrive, " +
    "check your spam folder.",
  invoices:
    "Invoices are generated on the first day of each billing cycle and emailed to the billing contact. " +
    "You can download past invoices as PDF from Settings > Billing. To change the company name or VAT " +
    "number shown on invoices, update your billing details before the next cycle.",
  shipping:
    "Orders placed before 2 pm ship the same business day. Standard shipping takes 3 to 5 business days; " +
    "express delivery arrives within 1 to 2 days. You will receive a tracking number by email as soon as " +
    "your parcel leaves our warehouse.",
};
type Topic = keyof typeof PARAGRAPHS;

async function rank(query: string): Promise<{ topic: Topic; score: number }[]> {
  const e = new LocalEmbedder();
  const topics = Object.keys(PARAGRAPHS) as Topic[];
  const [q, ...docs] = await e.embed([query, ...topics.map((t) => PARAGRAPHS[t])]);
  return topics.map((topic, i) => ({ topic, score: cosine(q, docs[i]) })).sort((a, b) => b.score - a.score);
}

const V1: LocalModelSpec = { version: 1, lexicalDimension: 768, semanticWeight: 0 };
const LOCAL_SPEC_FOR_TEST: LocalModelSpec = { version: 2, lexicalDimension: 924, semanticWeight: 0.3 };

/** Checksum of a vector rounded to 1e-6, to detect any change of the features. */
function checksum(v: number[]): string {
  let h = 0x811c9dc5;
  for (const ch of v.map((x) => x.toFixed(6)).join(",")) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}

describe("LocalEmbedder", () => {
  it("has a versioned model name that carries the dimension", () => {
    const e = new LocalEmbedder();
    expect(e.model).toBe(LOCAL_MODEL);
    expect(e.model).toMatch(/^local-hash-glove-v\d+-1024$/);
    expect(e.dimension).toBe(1024);
    expect(LOCAL_DIMENSION).toBe(1024);
    expect(modelName(V1)).toBe("local-hash-v1-768");
    expect(modelName({ ...V1, seed: 3 })).not.toBe(modelName(V1));
    expect(modelName({ ...LOCAL_SPEC_FOR_TEST, probes: 2 })).toBe(modelName(LOCAL_SPEC_FOR_TEST));
    expect(modelName({ ...LOCAL_SPEC_FOR_TEST, probes: 4 })).toBe("local-hash-glove-v2-1024-p4");
  });

  it("spreads each feature over `probes` buckets when asked (benchmark variants)", async () => {
    const text = PARAGRAPHS.invoices;
    const [base] = await new LocalEmbedder().embed([text]);
    const [two] = await new LocalEmbedder({ spec: { ...LOCAL_SPEC_FOR_TEST, probes: 2 } }).embed([text]);
    expect(two).toEqual(base);
    const [four] = await new LocalEmbedder({ spec: { ...LOCAL_SPEC_FOR_TEST, probes: 4 } }).embed([text]);
    expect(norm(four)).toBeCloseTo(1, 10);
    expect(four).not.toEqual(base);
    // Its first two probes are the 2-probe ones: half of the lexical mass stays in place.
    expect(cosine(four, base)).toBeGreaterThan(0.6);
    expect(() => new LocalEmbedder({ spec: { ...LOCAL_SPEC_FOR_TEST, probes: 1 } })).toThrow(/probes/);
  });

  it("returns one vector of the right dimension per input, in order", async () => {
    const e = new LocalEmbedder();
    const texts = ["alpha", "beta gamma", "delta"];
    const out = await e.embed(texts);
    expect(out).toHaveLength(3);
    for (const v of out) expect(v).toHaveLength(LOCAL_DIMENSION);
    expect(out[1]).toEqual((await e.embed(["beta gamma"]))[0]);
    expect(await e.embed([])).toEqual([]);
  });

  it("is deterministic across instances and independent of batch neighbours", async () => {
    const text = PARAGRAPHS.refunds;
    const [a] = await new LocalEmbedder().embed([text]);
    const b = await new LocalEmbedder().embed([PARAGRAPHS.sla, text, PARAGRAPHS.shipping]);
    expect(b[1]).toEqual(a);
  });

  it("returns unit-norm, finite vectors for all kinds of text", async () => {
    const texts = [
      ...Object.values(PARAGRAPHS),
      "x",
      "the and of", // stopwords only
      "??? !!! →", // no letters at all
      "Café crème, naïve façade — Straße",
      "退款将在收到退回商品后的5至7个工作日内处理。",
      "Возврат средств занимает до 10 дней",
      "a".repeat(10_000),
      "🙂 emoji 👍🏽 text",
    ];
    const out = await new LocalEmbedder().embed(texts);
    for (const v of out) {
      expect(v.every(Number.isFinite)).toBe(true);
      expect(norm(v)).toBeCloseTo(1, 10);
    }
  });

  it("maps empty and whitespace-only text to a fixed unit vector, never a zero vector", async () => {
    const [empty, blank] = await new LocalEmbedder().embed(["", "  \n\t "]);
    expect(empty[0]).toBe(1);
    expect(norm(empty)).toBe(1);
    expect(blank).toEqual(empty);
  });

  it("normalises Unicode (NFKC) and case", async () => {
    const e = new LocalEmbedder();
    const [a, b, c] = await e.embed(["ＲＥＦＵＮＤ ﬁle", "refund file", "Refund FILE"]);
    expect(a).toEqual(b);
    expect(c).toEqual(b);
  });

  it("stems common inflections to the same key", () => {
    const same: [string, string][] = [
      ["refunds", "refund"],
      ["passwords", "password"],
      ["resetting", "reset"],
      ["charged", "charge"],
      ["charging", "charges"],
      ["takes", "taking"],
      ["policies", "policy"],
      ["applied", "apply"],
      ["shipped", "ship"],
      ["invoices", "invoice"],
      ["boxes", "box"],
      ["monthly", "month"],
      ["billing", "bill"],
      ["processed", "process"],
    ];
    for (const [a, b] of same) expect(stem(a), `${a} vs ${b}`).toBe(stem(b));
    expect(stem("status")).toBe("status");
    expect(stem("analysis")).toBe("analysis");
    expect(stem("thing")).toBe("thing");
  });

  it("ranks the refund paragraph first for a refund question", async () => {
    const ranking = await rank("How long do refunds take?");
    expect(ranking[0].topic).toBe("refunds");
    expect(ranking[0].score).toBeGreaterThan(ranking[1].score + 0.05);
  });

  it.each<[string, Topic]>([
    ["forgot my password, the reset link never arrived", "password"],
    ["where can I download my invoices?", "invoices"],
    ["how long does standard shipping take", "shipping"],
    ["response time for priority incidents", "sla"],
    ["I returned an item, when will the money be credited?", "refunds"],
  ])("retrieves the right paragraph for %j", async (query, topic) => {
    expect((await rank(query))[0].topic).toBe(topic);
  });

  it("keeps inflected paraphrases closer than unrelated text", async () => {
    const e = new LocalEmbedder();
    const [a, b, unrelated1, unrelated2] = await e.embed([
      "resetting my passwords",
      "password reset",
      "shipping takes five business days",
      "download invoices as PDF",
    ]);
    const paraphrase = cosine(a, b);
    expect(paraphrase).toBeGreaterThan(0.5);
    expect(paraphrase).toBeGreaterThan(cosine(a, unrelated1) + 0.3);
    expect(paraphrase).toBeGreaterThan(cosine(a, unrelated2) + 0.3);
  });

  it("finds the answer when the question uses other words (semantic part)", async () => {
    const docs = [
      "Our physicians and nurses treat patients at the hospital around the clock.",
      "Train tickets can be refunded up to one day before departure.",
      "The orchestra performs symphonies every Sunday evening.",
    ];
    const e = new LocalEmbedder();
    const lexical = new LocalEmbedder({ spec: { ...LOCAL_SPEC_FOR_TEST, semanticWeight: 0 } });
    const [q, ...d] = await e.embed(["where can a doctor see me if I am sick", ...docs]);
    const [lq, ...ld] = await lexical.embed(["where can a doctor see me if I am sick", ...docs]);
    // No word in common with any text: the lexical part alone cannot tell them apart.
    expect(Math.abs(cosine(lq, ld[0]) - cosine(lq, ld[1]))).toBeLessThan(0.1);
    expect(cosine(q, d[0])).toBeGreaterThan(cosine(q, d[1]) + 0.05);
    expect(cosine(q, d[0])).toBeGreaterThan(cosine(q, d[2]) + 0.05);
  });

  describe("query weighting by an agent's chunks", () => {
    // The chunks of a small agent: "router" is in every one of them, the other words in one each.
    const CHUNKS = [
      "Router setup: plug the router into the modem and open the router admin page.",
      "Router firmware updates install overnight; the router restarts when they finish.",
      "Router warranty claims need the receipt and the serial number from the router label.",
      "Router lights: a blinking orange router light means the router has no uplink.",
    ];

    async function corpusOf(e: LocalEmbedder, chunks: string[]): Promise<CorpusStats> {
      const df = new CountTable(64);
      await e.countFeatures(chunks, df);
      return { chunks: chunks.length, df };
    }

    it("counts each distinct feature once per chunk", async () => {
      const e = new LocalEmbedder();
      const one = new CountTable(16);
      await e.countFeatures(["router"], one);
      const two = new CountTable(16);
      await e.countFeatures(["router router", "router"], two);
      // The word, its character 3-5-grams (<ro, rou, ...) and its word vector.
      expect(one.size).toBeGreaterThan(10);
      expect(two.size).toBe(one.size);
      for (let k = 0; k < one.size; k++) {
        const feature = one.keys[one.slots[k]];
        expect(one.get(feature)).toBe(1);
        expect(two.get(feature)).toBe(2);
      }
      expect(one.get(wordFeatureId("router"))).toBe(1);
      expect(one.get(wordFeatureId("routers"))).toBe(1); // same stem
      expect(one.get(wordFeatureId("modem"))).toBe(0);
    });

    it("lets the word only one chunk has decide, where plain vectors follow the word every chunk repeats", async () => {
      const e = new LocalEmbedder();
      const query = "router warranty";
      const chunkVectors = await e.embed(CHUNKS);
      const order = (q: number[]) =>
        chunkVectors
          .map((v, i) => ({ i, s: cosine(q, v) }))
          .sort((x, y) => y.s - x.s)
          .map((x) => x.i);
      const [plain] = await e.embed([query]);
      const [weighted] = await e.embedQueries([query], await corpusOf(e, CHUNKS));
      expect(norm(weighted)).toBeCloseTo(1, 6);
      expect(order(weighted)[0]).toBe(2);
      // Unweighted, "router" (six times in chunk 0) is worth as much as "warranty": the margin is
      // far smaller (or reversed), which is what the weighting is for.
      const margin = (q: number[]) => cosine(q, chunkVectors[2]) - Math.max(...[0, 1, 3].map((i) => cosine(q, chunkVectors[i])));
      expect(margin(weighted)).toBeGreaterThan(margin(plain) + 0.05);
    });

    it("explains a query word by word: stopwords dropped, one entry per stem, unseen words at the top weight", async () => {
      const e = new LocalEmbedder();
      const corpus = await corpusOf(e, CHUNKS);
      const words = e.explainQuery("How do routers handle the router WARRANTY and a toaster?", corpus);
      expect(words.map((w) => w.word)).toEqual(["routers", "handle", "warranty", "toaster"]);
      const [router, , warranty, toaster] = words;
      expect(router.chunks).toBe(4);
      expect(warranty.chunks).toBe(1);
      expect(toaster.chunks).toBe(0);
      expect(router.weight).toBeCloseTo(Math.log(1 + 0.5 / 4.5), 10);
      expect(warranty.weight).toBeCloseTo(Math.log(1 + 3.5 / 1.5), 10);
      expect(toaster.weight).toBeGreaterThan(warranty.weight);
    });

    it("embeds queries like chunks when the agent has no chunks yet", async () => {
      const e = new LocalEmbedder();
      const [plain] = await e.embed(["router warranty"]);
      const [weighted] = await e.embedQueries(["router warranty"], { chunks: 0, df: new CountTable(16) });
      expect(weighted).toEqual(plain);
    });

    it("never changes chunk vectors: embed() ignores any corpus", async () => {
      const e = new LocalEmbedder();
      const [before] = await e.embed([CHUNKS[2]]);
      await e.embedQueries(["router warranty"], await corpusOf(e, CHUNKS));
      const [after] = await e.embed([CHUNKS[2]]);
      expect(after).toEqual(before);
    });
  });

  it("pins the vectors of each model version (bump the version in LOCAL_SPEC when this fails)", async () => {
    // If you changed features/weights/stemming/hashing/word vectors on purpose: bump the version
    // in LOCAL_SPEC (so stored vectors are re-embedded) and add the new model name's checksum here.
    const golden: Record<string, string> = {
      "local-hash-v1-768": "fdaff978",
      "local-hash-glove-v2-1024": "e79553ba",
    };
    const text = PARAGRAPHS.refunds + " Ünïcödé résumé 退款 don't";
    const [v] = await new LocalEmbedder().embed([text]);
    expect(golden[LOCAL_MODEL], `no checksum recorded for ${LOCAL_MODEL}`).toBeDefined();
    expect(checksum(v)).toBe(golden[LOCAL_MODEL]);
    // The lexical part is unchanged since v1: the old spec still gives the old vectors.
    const [old] = await new LocalEmbedder({ spec: V1 }).embed([text]);
    expect(checksum(old)).toBe(golden["local-hash-v1-768"]);
  });
});
