import { StringDecoder } from "node:string_decoder";
import { Parser } from "htmlparser2";

/** Longer `<loc>` text is no URL a sitemap may hold (2,048 characters at most): it is skipped, not kept growing. */
const MAX_LOC_CHARS = 4096;

/**
 * Reads a sitemap as it arrives: each `<loc>` is handed to `onLoc` at once and nothing else is
 * kept, so a large file costs the parser's state only. `index` is known from the root element on.
 */
export class SitemapReader {
  index = false;
  private root: string | null = null;
  private inLoc = false;
  private text = "";
  private readonly decoder = new StringDecoder("utf8");
  private readonly parser: Parser;

  constructor(onLoc: (loc: string) => void) {
    this.parser = new Parser(
      {
        onopentag: (name) => {
          const local = name.toLowerCase().replace(/^.*:/, "");
          this.root ??= local;
          if (local === "sitemapindex") this.index = true;
          if (local === "loc") {
            this.inLoc = true;
            this.text = "";
          }
        },
        ontext: (t) => {
          if (this.inLoc && this.text.length <= MAX_LOC_CHARS) this.text += t;
        },
        onclosetag: (name) => {
          if (name.toLowerCase().replace(/^.*:/, "") !== "loc" || !this.inLoc) return;
          this.inLoc = false;
          const loc = this.text.trim();
          this.text = "";
          if (loc && loc.length <= MAX_LOC_CHARS) onLoc(loc);
        },
      },
      { xmlMode: true, decodeEntities: true },
    );
  }

  write(chunk: Buffer): void {
    this.parser.write(this.decoder.write(chunk));
  }

  /** Ends the file; throws when it was no sitemap. */
  end(): { index: boolean } {
    this.parser.write(this.decoder.end());
    this.parser.end();
    if (this.root !== "urlset" && this.root !== "sitemapindex") throw new Error("it is not a sitemap (no <urlset> or <sitemapindex>)");
    return { index: this.index };
  }
}

/** The `<loc>` entries of a sitemap, and whether it is an index of other sitemaps. */
export function parseSitemap(xml: string): { index: boolean; locations: string[] } {
  const locations: string[] = [];
  const reader = new SitemapReader((loc) => locations.push(loc));
  reader.write(Buffer.from(xml, "utf8"));
  return { ...reader.end(), locations };
}
