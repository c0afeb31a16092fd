// The generated corpus: support articles sized by the app's own chunker, the 20 MB HTML export,
// and queries taken from an article's words. Seeded, so every run generates the same.
// The app's own chunker sizes the generated articles (`npm run bench` loads tsx for it).
import { chunkText } from "../../../lib/core/chunking.ts";
import { CHUNK_SIZE, LARGE_AGENTS, SMALL_AGENT_CHUNKS } from "./options.mjs";

// ---------------------------------------------------------------- seeded randomness
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
export const rand = mulberry32(20240611);
export const pick = (arr, r = rand) => arr[Math.floor(r() * arr.length)];
export const int = (lo, hi, r = rand) => lo + Math.floor(r() * (hi - lo + 1));

// ---------------------------------------------------------------- corpus
const W = {
  product:
    "router modem gateway printer scanner laptop tablet phone headset keyboard monitor camera thermostat speaker charger dock projector smartwatch firewall switch repeater extender console server drive backup vault mailbox calendar invoice subscription license account portal dashboard workspace wallet".split(
      " ",
    ),
  feature:
    "firmware password login billing refund warranty shipping delivery return exchange pairing bluetooth wireless network bandwidth storage encryption certificate notification permission sync export import update upgrade reset recovery activation installation configuration schedule quota invoice receipt coupon discount trial renewal cancellation migration integration webhook token session profile".split(
      " ",
    ),
  verb: "restart reset update configure install remove enable disable verify check replace contact open close select download upload connect disconnect restore rename assign review confirm submit request schedule cancel renew transfer approve reject retry clear refresh unlock register sign migrate export import".split(
    " ",
  ),
  adj: "slow intermittent missing expired blocked duplicate incorrect unexpected delayed corrupted unresponsive locked encrypted unavailable pending failed partial outdated invalid offline overheated noisy dim empty frozen flickering weak strong secure shared private default custom automatic manual regional international monthly annual".split(
    " ",
  ),
  noun: "customer agent technician administrator owner user team manager partner vendor carrier courier warehouse store branch office region country plan tier order ticket case request issue error message code light button cable port adapter battery screen menu settings page tab option field form link email address number".split(
    " ",
  ),
  filler:
    "the a an this that each every your our its their when if after before while because so then also usually often sometimes always never only still already".split(
      " ",
    ),
  prep: "in on with for from to by at under over through during within without about across".split(" "),
  time: "minutes hours days weeks seconds business-days".split(" "),
};

function sentence(r, topic) {
  const parts = [];
  const kind = int(0, 5, r);
  const p = () => pick(W.product, r);
  const f = () => pick(W.feature, r);
  if (kind === 0)
    parts.push(
      `If ${pick(W.filler, r)} ${p()} shows ${pick(["a", "an"], r)} ${pick(W.adj, r)} ${pick(W.noun, r)}, ${pick(W.verb, r)} the ${f()} and ${pick(W.verb, r)} it again.`,
    );
  else if (kind === 1)
    parts.push(
      `To ${pick(W.verb, r)} ${topic.product} ${topic.feature}, open ${pick(W.noun, r)} ${pick(W.feature, r)} ${pick(W.prep, r)} the ${pick(W.noun, r)} ${pick(W.feature, r)} and ${pick(W.verb, r)} ${pick(W.adj, r)} ${f()}.`,
    );
  else if (kind === 2)
    parts.push(
      `The ${pick(W.noun, r)} can ${pick(W.verb, r)} ${pick(W.adj, r)} ${f()} ${pick(W.prep, r)} ${int(1, 72, r)} ${pick(W.time, r)}; ${pick(W.filler, r)} ${pick(W.noun, r)} ${pick(W.verb, r)}s the ${p()}.`,
    );
  else if (kind === 3)
    parts.push(
      `${pick(W.filler, r)[0].toUpperCase()}${pick(W.filler, r).slice(1)} ${topic.product} ${pick(W.feature, r)} is ${pick(W.adj, r)}, ${pick(W.verb, r)} the ${pick(W.noun, r)} ${pick(W.prep, r)} ${pick(W.adj, r)} ${pick(W.feature, r)}.`,
    );
  else if (kind === 4)
    parts.push(
      `Note: ${topic.feature} ${pick(W.prep, r)} ${pick(W.adj, r)} ${pick(W.product, r)} ${pick(W.noun, r)}s needs ${pick(W.adj, r)} ${f()} ${pick(W.prep, r)} the ${pick(W.noun, r)}.`,
    );
  else
    parts.push(
      `Step ${int(1, 9, r)}: ${pick(W.verb, r)} ${pick(W.filler, r)} ${pick(W.adj, r)} ${p()} ${f()}, then ${pick(W.verb, r)} ${pick(W.noun, r)} ${pick(W.feature, r)}.`,
    );
  return parts.join(" ");
}

/**
 * One article of `chunks` chunks under the app's default chunking (boundary, 800/100): sentences
 * are generated well past that length, then the longest run of whole sentences that the app's
 * own chunker (`lib/core/chunking.ts`) cuts into at most `chunks` chunks is kept.
 */
function article(r, id, chunks, token) {
  const topic = { product: pick(W.product, r), feature: pick(W.feature, r) };
  const title = `# ${topic.product} ${topic.feature} ${pick(W.adj, r)} ${pick(W.noun, r)} (${token})`;
  // Prefix lengths after each sentence, each sentence with the break that follows it.
  let text = `${title}\n\n`;
  const ends = [];
  let sinceBreak = 0;
  const want = CHUNK_SIZE * chunks + 400;
  while (text.length < want) {
    let s = sentence(r, topic);
    if (r() < 0.08) s += ` Reference ${token}.`;
    text += s;
    ends.push(text.length);
    text += ++sinceBreak >= int(3, 6, r) ? "\n\n" : " ";
    if (text.endsWith("\n\n")) sinceBreak = 0;
  }
  const count = (k) => chunkText(text.slice(0, ends[k])).length;
  let lo = 0; // count(lo) <= chunks, the longest such prefix is searched for
  let hi = ends.length - 1;
  if (count(hi) <= chunks) lo = hi;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (count(mid) <= chunks) lo = mid;
    else hi = mid;
  }
  const body = text.slice(0, ends[lo]);
  const lens = chunkText(body).map((c) => c.text.length);
  return { id, filename: `article-${token}.md`, token, text: body, chunks: lens.length, lens };
}

/** Agents: one small one of about 200 chunks among large ones, `total` chunks in all. */
export function buildCorpus(total) {
  const agents = [];
  const sizes = [SMALL_AGENT_CHUNKS];
  const rest = total - SMALL_AGENT_CHUNKS;
  for (let i = 0; i < LARGE_AGENTS; i++) sizes.push(Math.floor(rest / LARGE_AGENTS) + (i < rest % LARGE_AGENTS ? 1 : 0));
  let n = 0;
  for (const [i, size] of sizes.entries()) {
    const articles = [];
    let left = size;
    while (left > 0) {
      const c = Math.min(left, int(3, 9));
      const token = `kb${(n++).toString(36).padStart(4, "0")}q`;
      const a = article(rand, n, c, token);
      articles.push(a);
      left -= a.chunks;
    }
    agents.push({ name: i === 0 ? "bench small" : `bench large ${i}`, small: i === 0, chunks: size, articles });
  }
  return agents;
}

/**
 * An HTML export of about `bytes` bytes: support articles, each in the page chrome such exports
 * carry (navigation, related links, a footer, class attributes), so its text is about a fifth of
 * its size, within MAX_TEXT_CHARS.
 */
export function largeHtml(bytes, seed = 0) {
  const rand = mulberry32(77 + seed);
  const parts = ["<!doctype html><html><head><title>Help centre export</title></head><body>"];
  let size = parts[0].length;
  for (let i = 0; size < bytes - 200; i++) {
    const topic = { product: pick(W.product, rand), feature: pick(W.feature, rand) };
    const words = Array.from({ length: 2 }, () => sentence(rand, topic)).join(" ");
    const related = Array.from(
      { length: 4 },
      (_, k) =>
        `<li><a class="related__link" href="/help/articles/${(i * 7 + k) % 9973}">${pick(W.product, rand)} ${pick(W.feature, rand)}</a></li>`,
    ).join("");
    const article =
      `<nav class="breadcrumbs"><ul><li><a href="/">Home</a></li><li><a href="/help">Help centre</a></li></ul></nav>` +
      `<article class="help-article" data-id="${i}"><h2 class="help-article__title">Article ${i}</h2>` +
      `<p class="help-article__body">${words}</p></article>` +
      `<aside class="related"><h3>Related articles</h3><ul>${related}</ul></aside>` +
      `<footer class="site-footer"><a href="/privacy">Privacy</a> <a href="/terms">Terms</a></footer>\n`;
    if (size + article.length > bytes - 20) break;
    parts.push(article);
    size += article.length;
  }
  parts.push("</body></html>");
  return parts.join("");
}

/** One more agent of `chunks` chunks, uploaded while searches run. */
export function buildExtraAgent(chunks) {
  const articles = [];
  for (let left = chunks, n = 0; left > 0; n++) {
    const c = Math.min(left, int(3, 9));
    const a = article(rand, 100_000 + n, c, `kx${n.toString(36).padStart(4, "0")}q`);
    articles.push(a);
    left -= a.chunks;
  }
  return { name: "bench upload during search", small: false, chunks, articles };
}

export function queryFrom(r, a, words) {
  const tokens = a.text
    .replace(/[^A-Za-z -]+/g, " ")
    .split(/\s+/)
    .filter((w) => w.length > 2 && !w.startsWith("kb"));
  const start = int(0, Math.max(0, tokens.length - words), r);
  return tokens.slice(start, start + words).join(" ");
}
