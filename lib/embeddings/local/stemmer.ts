/**
 * Light, deterministic suffix stemmer for ASCII words (others are returned unchanged).
 * Plural s/es/ies, -ied, -ing, -ed (undoubling "resett" → "reset"), -ly, then a final -e, so
 * e.g. take/takes/taking → "tak", charge/charged/charging → "charg", uses/used/using → "us".
 * Not linguistically perfect — it only has to map inflections of a word to the same key.
 * Changing it changes the vectors (bump the model version).
 */
export function stem(word: string): string {
  const n = word.length;
  if (n < 3 || !isAsciiLowerWord(word)) return word;
  let w = word;
  if (n > 4 && (w.endsWith("ies") || w.endsWith("ied"))) w = w.slice(0, -3) + "y";
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (n > 4 && /(?:x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (n > 3 && w.endsWith("s") && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);

  if (w.length > 4 && w.endsWith("ing") && hasVowel(w, w.length - 3)) {
    w = undouble(w.slice(0, -3));
  } else if (w.length > 3 && w.endsWith("ed") && !w.endsWith("eed") && hasVowel(w, w.length - 2)) {
    w = undouble(w.slice(0, -2));
  } else if (w.length > 5 && w.endsWith("ly")) {
    w = w.slice(0, -2);
  }
  if (w.length >= 3 && w.endsWith("e")) w = w.slice(0, -1);
  return w;
}

function isAsciiLowerWord(w: string): boolean {
  for (let i = 0; i < w.length; i++) {
    const c = w.charCodeAt(i);
    if (c < 0x61 || c > 0x7a) return false;
  }
  return true;
}

function hasVowel(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) {
    const c = w.charCodeAt(i);
    // a e i o u y
    if (c === 0x61 || c === 0x65 || c === 0x69 || c === 0x6f || c === 0x75 || c === 0x79) return true;
  }
  return false;
}

function undouble(w: string): string {
  const n = w.length;
  if (n < 3) return w;
  const c = w.charCodeAt(n - 1);
  if (c !== w.charCodeAt(n - 2)) return w;
  // keep -ll, -ss, -zz (bill, process, buzz) and vowels
  if (c === 0x6c || c === 0x73 || c === 0x7a || "aeiouy".includes(w[n - 1])) return w;
  return w.slice(0, -1);
}
