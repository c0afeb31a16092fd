import "server-only";
import fs from "node:fs";
import path from "node:path";

/**
 * The float32 copies of a compact table's documents, in a file of their own beside the table, so
 * that the exact re-score of its candidates reads each candidate's 4 KB where it lies: in SQLite a
 * copy is stored in runs of up to 1,024 chunks, and reading one chunk reads its whole run (up to
 * 4 MB). Documents are appended as their rows join the table; a removed one's bytes stay until
 * the file is written again without them (`rewrite`), so row order in the table and offsets here
 * are independent. The file is the page cache's, not the process's: it does not count against
 * EXACT_MEMORY_MB.
 */

/** Where one stored run of a document lies in the file. */
export interface FloatRun {
  first: number;
  count: number;
  offset: number;
}

/** What a table file keeps to reopen its float rows (FloatRows.describe). */
export interface FloatRowsIndex {
  /** The file's name, in the table file's directory. */
  file: string;
  dimension: number;
  size: number;
  documents: [number, FloatRun[]][];
}

export class FloatRows {
  readonly dimension: number;
  /** Bytes written, removed documents' included. */
  size: number;
  /** Bytes of removed documents. */
  dead = 0;
  private readonly runs: Map<number, FloatRun[]>;
  private fd: number;
  readonly file: string;

  private constructor(file: string, fd: number, dimension: number, size: number, runs: Map<number, FloatRun[]>) {
    this.file = file;
    this.fd = fd;
    this.dimension = dimension;
    this.size = size;
    this.runs = runs;
  }

  /** A new, empty file (any file there before is replaced). */
  static create(file: string, dimension: number): FloatRows {
    return new FloatRows(file, fs.openSync(file, "w+"), dimension, 0, new Map());
  }

  /**
   * The file as `index` describes it; null when it is missing or shorter than the index says (a
   * file of another table, or cut short): the caller builds the table again.
   */
  static open(file: string, index: FloatRowsIndex): FloatRows | null {
    let fd: number;
    try {
      fd = fs.openSync(file, "r+");
    } catch {
      return null;
    }
    if (fs.fstatSync(fd).size < index.size) {
      fs.closeSync(fd);
      return null;
    }
    return new FloatRows(file, fd, index.dimension, index.size, new Map(index.documents));
  }

  /** What reopening this file needs, kept in the table's file. */
  describe(): FloatRowsIndex {
    return { file: path.basename(this.file), dimension: this.dimension, size: this.size, documents: [...this.runs] };
  }

  hasDocument(documentId: number): boolean {
    return this.runs.has(documentId);
  }

  /** Appends a run of consecutive chunks of one document (`count` x dimension floats). */
  append(documentId: number, firstChunk: number, count: number, vectors: Float32Array): void {
    const bytes = Buffer.from(vectors.buffer, vectors.byteOffset, count * this.dimension * 4);
    fs.writeSync(this.fd, bytes, 0, bytes.length, this.size);
    const runs = this.runs.get(documentId) ?? [];
    runs.push({ first: firstChunk, count, offset: this.size });
    this.runs.set(documentId, runs);
    this.size += bytes.length;
  }

  remove(documentId: number): void {
    for (const r of this.runs.get(documentId) ?? []) this.dead += r.count * this.dimension * 4;
    this.runs.delete(documentId);
  }

  /** Where a chunk's floats lie; null when the file does not hold it. */
  offsetOf(documentId: number, chunk: number): number | null {
    for (const r of this.runs.get(documentId) ?? [])
      if (chunk >= r.first && chunk < r.first + r.count) return r.offset + (chunk - r.first) * this.dimension * 4;
    return null;
  }

  /**
   * The floats of each given chunk, read in file order; `use` gets each one found (the array is
   * reused: copy what is kept). Returns how many were read; the caller reads the others from
   * SQLite (a file closed meanwhile, after its table was dropped, reads none).
   */
  read(
    chunks: { document_id: number; chunk_index: number }[],
    use: (documentId: number, chunk: number, vector: Float32Array) => void,
  ): number {
    const rowBytes = this.dimension * 4;
    const at = chunks
      .map((c) => ({ c, offset: this.offsetOf(c.document_id, c.chunk_index) }))
      .filter((x): x is { c: { document_id: number; chunk_index: number }; offset: number } => x.offset !== null)
      .sort((a, b) => a.offset - b.offset);
    const buffer = Buffer.allocUnsafe(rowBytes);
    const vector = new Float32Array(buffer.buffer, buffer.byteOffset, this.dimension);
    let read = 0;
    for (const { c, offset } of at) {
      try {
        if (fs.readSync(this.fd, buffer, 0, rowBytes, offset) !== rowBytes) continue;
      } catch {
        return read;
      }
      use(c.document_id, c.chunk_index, vector);
      read++;
    }
    return read;
  }

  /** Writes the live documents again into a new file in place of this one (when a quarter or more is removed documents'). */
  async rewrite(): Promise<void> {
    const tmp = `${this.file}.tmp`;
    const out = await fs.promises.open(tmp, "w");
    const from = await fs.promises.open(this.file, "r");
    let size = 0;
    const runs = new Map<number, FloatRun[]>();
    const buffer = Buffer.allocUnsafe(1 << 20);
    try {
      for (const [documentId, rs] of this.runs) {
        const moved: FloatRun[] = [];
        for (const r of rs) {
          moved.push({ ...r, offset: size });
          for (let done = 0, bytes = r.count * this.dimension * 4; done < bytes;) {
            const { bytesRead } = await from.read(buffer, 0, Math.min(buffer.length, bytes - done), r.offset + done);
            if (bytesRead <= 0) throw new Error(`float rows file ${this.file} is shorter than its index`);
            await out.write(buffer, 0, bytesRead, size);
            size += bytesRead;
            done += bytesRead;
          }
        }
        runs.set(documentId, moved);
      }
      await out.sync();
    } finally {
      await out.close();
      await from.close();
    }
    fs.renameSync(tmp, this.file);
    fs.closeSync(this.fd);
    this.fd = fs.openSync(this.file, "r+");
    this.runs.clear();
    for (const [k, v] of runs) this.runs.set(k, v);
    this.size = size;
    this.dead = 0;
  }

  /** Makes the written bytes durable before a table file that describes them is written. */
  sync(): Promise<void> {
    return new Promise((resolve, reject) => fs.fsync(this.fd, (err) => (err ? reject(err) : resolve())));
  }

  close(): void {
    try {
      fs.closeSync(this.fd);
    } catch {
      // closed already
    }
  }

  /** Closes the file once searches that still hold its table are done with it (they read their candidates within this time). */
  retire(afterMs = 30_000): void {
    setTimeout(() => this.close(), afterMs).unref();
  }
}
