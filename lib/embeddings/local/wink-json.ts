import fs from "node:fs";
import { WordVectorsError } from "./word-vectors";
import { WordVectorsBuilder, type WordVectorRecipe } from "./word-vectors-builder";

/**
 * Streams the JSON of a wink word-embedding package into a WordVectorsBuilder, without ever
 * holding the ~300 MB text or its parsed objects in memory. The JSON looks like
 *   {"precision":8,…,"dimensions":100,"words":[…],"vectors":{"the":[v1,…,v100,norm,rank],…},"unkVector":[…]}
 * Only `dimensions` and `vectors` are read; the last number of each vector is the word's
 * frequency rank and the one before it its norm.
 */
export async function readWinkEmbeddings(jsonFile: string, recipe?: WordVectorRecipe): Promise<WordVectorsBuilder> {
  const stream = fs.createReadStream(jsonFile, { highWaterMark: 4 << 20 });
  const parser = new WinkParser(jsonFile, recipe);
  for await (const chunk of stream) parser.push(chunk as Buffer);
  return parser.finish();
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_SQUARE = 0x5b;
const CLOSE_SQUARE = 0x5d;
const CLOSE_CURLY = 0x7d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

/** Thrown inside the parser when an entry runs past the end of the bytes seen so far. */
const INCOMPLETE = Symbol("incomplete");

const VECTORS_KEY = '"vectors":{';
const POW10 = Array.from({ length: 40 }, (_, i) => 10 ** i);

export class WinkParser {
  private pending: Buffer = Buffer.alloc(0);
  private builder: WordVectorsBuilder | null = null;
  private values = new Float64Array(0);
  private readonly rank = new Float64Array(1);
  private state: "header" | "entries" | "done" = "header";
  private header = "";
  private readonly decoder = new TextDecoder("utf-8", { fatal: false });

  constructor(
    private readonly label: string,
    private readonly recipe?: WordVectorRecipe,
  ) {}

  push(chunk: Buffer): void {
    if (this.state === "done") return;
    let buf = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    if (this.state === "header") {
      if (this.header.length < 4096) this.header += chunk.subarray(0, 4096).toString("latin1");
      const start = buf.indexOf(VECTORS_KEY);
      if (start < 0) {
        // The key may be split across chunks: keep just enough bytes to find it next time.
        this.pending = Buffer.from(buf.subarray(Math.max(0, buf.length - VECTORS_KEY.length)));
        return;
      }
      const dims = /"dimensions"\s*:\s*(\d+)/.exec(this.header);
      if (!dims) throw this.error(`no "dimensions" before the vectors`);
      const n = Number(dims[1]);
      this.builder = new WordVectorsBuilder(n, this.recipe);
      this.values = new Float64Array(n + 2);
      this.state = "entries";
      buf = buf.subarray(start + VECTORS_KEY.length);
    }
    let pos = 0;
    while (this.state === "entries") {
      const end = this.entry(buf, pos);
      if (end < 0) break;
      pos = end;
    }
    this.pending = Buffer.from(buf.subarray(pos)); // copy: `buf` may be a stream chunk
  }

  finish(): WordVectorsBuilder {
    if (this.state !== "done" || !this.builder) throw this.error("the vectors object is incomplete");
    if (this.builder.size === 0) throw this.error("no word vectors found");
    return this.builder;
  }

  private error(why: string): WordVectorsError {
    return new WordVectorsError(`Cannot read the word vectors in ${this.label}: ${why}.`);
  }

  /** Parses one `"word":[…]` at pos; returns the position after it, or -1 if incomplete. */
  private entry(buf: Buffer, pos: number): number {
    try {
      let p = skipSpace(buf, pos);
      if (buf[p] === COMMA) p = skipSpace(buf, p + 1);
      if (p >= buf.length) return -1;
      if (buf[p] === CLOSE_CURLY) {
        this.state = "done";
        return p + 1;
      }
      if (buf[p] !== QUOTE) throw this.error(`unexpected byte ${buf[p]} at a key`);
      const keyStart = p + 1;
      let escaped = false;
      p = keyStart;
      for (;;) {
        if (p >= buf.length) throw INCOMPLETE;
        const c = buf[p];
        if (c === BACKSLASH) {
          escaped = true;
          p += 2;
          continue;
        }
        if (c === QUOTE) break;
        p++;
      }
      if (p >= buf.length) throw INCOMPLETE;
      const raw = this.decoder.decode(buf.subarray(keyStart, p));
      const word = escaped ? (JSON.parse(`"${raw}"`) as string) : raw;
      p = skipSpace(buf, p + 1);
      if (at(buf, p) !== COLON) throw this.error(`expected ":" after "${word}"`);
      p = skipSpace(buf, p + 1);
      if (at(buf, p) !== OPEN_SQUARE) throw this.error(`expected "[" after "${word}":`);
      p++;
      const close = buf.indexOf(CLOSE_SQUARE, p);
      if (close < 0) throw INCOMPLETE;
      // The rank is the last number; words the builder would drop are skipped without parsing the rest.
      const lastComma = buf.lastIndexOf(COMMA, close);
      const builder = this.builder!;
      if (lastComma < p) throw this.error(`bad number list for "${word}"`);
      parseNumber(buf, skipSpace(buf, lastComma + 1), this.rank, 0);
      if (!builder.accepts(word, this.rank[0])) {
        builder.count(this.rank[0]);
        return close + 1;
      }
      const values = this.values;
      let n = 0;
      for (;;) {
        p = skipSpace(buf, p);
        if (at(buf, p) === CLOSE_SQUARE) break;
        if (n === values.length) throw this.error(`"${word}" has more than ${values.length} numbers`);
        p = parseNumber(buf, p, values, n++);
        p = skipSpace(buf, p);
        const c = at(buf, p);
        if (c === COMMA) p++;
        else if (c !== CLOSE_SQUARE) throw this.error(`bad number list for "${word}"`);
      }
      if (n !== values.length) throw this.error(`"${word}" has ${n} numbers, expected ${values.length}`);
      builder.add(word, values[values.length - 1], values);
      return p + 1;
    } catch (err) {
      if (err === INCOMPLETE) return -1;
      throw err;
    }
  }
}

function at(buf: Buffer, p: number): number {
  if (p >= buf.length) throw INCOMPLETE;
  return buf[p];
}

function skipSpace(buf: Buffer, p: number): number {
  while (p < buf.length && (buf[p] === 0x20 || buf[p] === 0x0a || buf[p] === 0x0d || buf[p] === 0x09)) p++;
  return p;
}

/** A JSON number at p into out[i]; returns the position after it. */
function parseNumber(buf: Buffer, p: number, out: Float64Array, i: number): number {
  let sign = 1;
  let c = at(buf, p);
  if (c === MINUS) {
    sign = -1;
    c = at(buf, ++p);
  }
  let mantissa = 0;
  let digits = 0;
  let fraction = 0;
  while (c >= ZERO && c <= NINE) {
    mantissa = mantissa * 10 + (c - ZERO);
    digits++;
    c = at(buf, ++p);
  }
  if (c === DOT) {
    c = at(buf, ++p);
    while (c >= ZERO && c <= NINE) {
      mantissa = mantissa * 10 + (c - ZERO);
      fraction++;
      digits++;
      c = at(buf, ++p);
    }
  }
  if (digits === 0) throw new WordVectorsError(`Cannot read the word vectors: a malformed number.`);
  let exponent = 0;
  if (c === LOWER_E || c === UPPER_E) {
    let expSign = 1;
    c = at(buf, ++p);
    if (c === MINUS || c === PLUS) {
      if (c === MINUS) expSign = -1;
      c = at(buf, ++p);
    }
    while (c >= ZERO && c <= NINE) {
      exponent = exponent * 10 + (c - ZERO);
      c = at(buf, ++p);
    }
    exponent *= expSign;
  }
  const shift = exponent - fraction;
  const value = shift >= 0 ? mantissa * (POW10[shift] ?? 10 ** shift) : mantissa / (POW10[-shift] ?? 10 ** -shift);
  out[i] = sign * value;
  return p;
}
