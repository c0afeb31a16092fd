import { Parser } from "htmlparser2";

/** The `<loc>` entries of a sitemap, and whether it is an index of other sitemaps. */
export function parseSitemap(xml: string): { index: boolean; locations: string[] } {
  const locations: string[] = [];
  let index = false;
  let root: string | null = null;
  let inLoc = false;
  let text = "";
  const parser = new Parser(
    {
      onopentag(name) {
        const local = name.toLowerCase().replace(/^.*:/, "");
        root ??= local;
        if (local === "sitemapindex") index = true;
        if (local === "loc") {
          inLoc = true;
          text = "";
        }
      },
      ontext(t) {
        if (inLoc) text += t;
      },
      onclosetag(name) {
        if (name.toLowerCase().replace(/^.*:/, "") !== "loc" || !inLoc) return;
        inLoc = false;
        const loc = text.trim();
        if (loc) locations.push(loc);
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(xml);
  parser.end();
  if (root !== "urlset" && root !== "sitemapindex") throw new Error("it is not a sitemap (no <urlset> or <sitemapindex>)");
  return { index, locations };
}
