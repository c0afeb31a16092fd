import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROWS_PER_CALL, unitQuery, VectorTable, type Precision } from "./exact-kernel";
import { loadTable, saveTable } from "./table-file";

let seed = 4242;
const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5;
const vectors = (rows: number, dim: number) => Float32Array.from({ length: rows * dim }, rand);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kb-table-file-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const DIM = 100; // padded to 112: the file keeps the padding
/** Runs of documents as the app appends them: [document, first chunk, count]. */
const RUNS: [number, number, number][] = [
  [1, 0, 50],
  [2, 0, 100],
  [3, 5, 60],
  [1, 50, 30], // a second run of document 1, apart from its first
  [4, 0, 30],
  [5, 0, 10],
  [5, 10, 10], // next to the one before: one run when read back
];

function tableOf(precision: Precision, capacity = 400): VectorTable {
  const t = new VectorTable(DIM, capacity, precision);
  for (const [doc, first, count] of RUNS) t.append(doc, first, count, vectors(count, DIM));
  t.remove(3);
  return t;
}

/** Every row's distance to each query, as bytes: equal only if equal bit for bit. */
function scores(t: VectorTable, queries: Float32Array[]): Buffer[] {
  const out = queries.map(() => new Float32Array(t.rows));
  for (let from = 0; from < t.rows; from += ROWS_PER_CALL) t.score(queries, from, Math.min(ROWS_PER_CALL, t.rows - from), out, from);
  return out.map((d) => Buffer.from(d.buffer));
}

const rowsOf = (t: VectorTable) => ({
  rows: t.rows,
  dead: t.dead,
  documentOf: [...t.documentOf.subarray(0, t.rows)],
  chunkOf: [...t.chunkOf.subarray(0, t.rows)],
  alive: [...t.alive.subarray(0, t.rows)],
  bounds: Array.from({ length: t.rows }, (_, r) => t.errorBound(r, 0.01)),
});

const queries = () => Array.from({ length: 3 }, () => unitQuery(Array.from({ length: DIM }, rand)));

describe("a vector table on disk", () => {
  it.each(["f32", "i8"] as const)(
    "reads back a %s table as saved, its removed documents still removed, and takes rows after",
    async (precision) => {
      const file = path.join(dir, `round-${precision}.table`);
      const t = tableOf(precision);
      await saveTable(t, file, "first");
      await saveTable(t, file, '{"agent": "Büro – 7"}'); // over the one before
      expect(fs.readdirSync(dir).filter((f) => f.startsWith(`round-${precision}`))).toEqual([`round-${precision}.table`]);

      const loaded = (await loadTable(file, { capacity: 500 }))!;
      expect(loaded.meta).toBe('{"agent": "Büro – 7"}');
      const l = loaded.table;
      expect([l.precision, l.dimension, l.capacity, l.live]).toEqual([precision, DIM, 500, t.live]);
      expect(rowsOf(l)).toEqual(rowsOf(t));
      const q = queries();
      expect(scores(l, q)).toEqual(scores(t, q));
      for (const doc of [1, 2, 3, 4, 5, 6]) expect(l.hasDocument(doc), `document ${doc}`).toBe(t.hasDocument(doc));
      for (const docs of [[1], [2, 3], [1, 2, 3, 4, 5], [5]]) expect(l.rangesOf(new Set(docs))).toEqual(t.rangesOf(new Set(docs)));

      const more = vectors(40, DIM);
      for (const table of [t, l]) {
        table.append(6, 0, 40, more);
        table.remove(1);
      }
      expect(rowsOf(l)).toEqual(rowsOf(t));
      expect(scores(l, q)).toEqual(scores(t, q));
      expect(l.compacted(300).rangesOf(new Set([2, 4, 5, 6]))).toEqual(t.compacted(300).rangesOf(new Set([2, 4, 5, 6])));
    },
  );

  it("holds the table as it was when the save began, while rows are appended and documents removed meanwhile", async () => {
    const file = path.join(dir, "meanwhile.table");
    const t = tableOf("i8");
    const before = rowsOf(t);
    const q = queries();
    const expected = scores(t, q);
    const saving = saveTable(t, file, "");
    t.append(7, 0, 20, vectors(20, DIM));
    t.remove(2);
    await saving;
    const l = (await loadTable(file))!.table;
    expect([l.capacity, l.hasDocument(2), l.hasDocument(7)]).toEqual([before.rows, true, false]);
    expect(rowsOf(l)).toEqual(before);
    expect(scores(l, q)).toEqual(expected);
  });

  it("reads back an empty table", async () => {
    const file = path.join(dir, "empty.table");
    await saveTable(new VectorTable(DIM, 10, "i8"), file, "none yet");
    const loaded = (await loadTable(file, { capacity: 10 }))!;
    expect([loaded.meta, loaded.table.rows, loaded.table.capacity]).toEqual(["none yet", 0, 10]);
  });

  it("gives null for a file that is missing, cut short, longer, of another format or version, or inconsistent", async () => {
    const file = path.join(dir, "good.table");
    const meta = "m";
    const t = tableOf("i8");
    await saveTable(t, file, meta);
    const good = fs.readFileSync(file);
    const alive = 40 + meta.length + 8 * t.rows; // where the file's alive flags begin
    const errors = alive + t.rows;
    const variants: [string, (b: Buffer) => Buffer][] = [
      ["cut in its header", (b) => b.subarray(0, 20)],
      ["cut after its header", (b) => b.subarray(0, 40)],
      ["cut in its rows", (b) => b.subarray(0, Math.floor(b.length / 2))],
      ["a byte short", (b) => b.subarray(0, b.length - 1)],
      ["a byte longer", (b) => Buffer.concat([b, Buffer.from([0])])],
      ["another magic", (b) => (b.write("KBVX", 0), b)],
      ["another version", (b) => (b.writeUInt32LE(2, 4), b)],
      ["another precision", (b) => (b.writeUInt32LE(7, 16), b)],
      ["more rows than it holds", (b) => (b.writeUInt32LE(t.rows + 1, 20), b)],
      ["a removed count that does not match", (b) => (b.writeUInt32LE(t.dead - 1, 24), b)],
      ["an alive flag of 2", (b) => ((b[alive + 3] = 2), b)],
      ["an error that is not a number", (b) => (b.writeFloatLE(Number.NaN, errors + 8), b)],
      ["meta that is not UTF-8", (b) => ((b[40] = 0xff), b)],
      ["garbage", (b) => Buffer.from(Array.from(b, () => Math.floor((rand() + 0.5) * 256)))],
    ];
    for (const [name, spoil] of variants) {
      fs.writeFileSync(file, spoil(Buffer.from(good)));
      expect(await loadTable(file), name).toBeNull();
    }
    expect(await loadTable(path.join(dir, "missing.table"))).toBeNull();
    expect(await loadTable(dir)).toBeNull();
    fs.writeFileSync(file, good);
    expect((await loadTable(file))?.table.rows).toBe(t.rows);
  });
});
