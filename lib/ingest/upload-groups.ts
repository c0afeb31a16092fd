/**
 * Splits the files a person chose into upload requests the server accepts: at most `maxFiles`
 * files and, where the sizes allow, at most `maxBytes` of them per request (room is left for the
 * multipart framing). A file larger than `maxBytes` goes alone; the server then says why it is
 * refused. Order is kept, so files with one name are indexed in the order chosen.
 */
export function uploadGroups<F extends { size: number }>(files: F[], maxFiles: number, maxBytes: number): F[][] {
  const budget = Math.max(1, maxBytes - 64 * 1024);
  const groups: F[][] = [];
  let current: F[] = [];
  let bytes = 0;
  for (const f of files) {
    const framed = f.size + 512;
    if (current.length > 0 && (current.length >= maxFiles || bytes + framed > budget)) {
      groups.push(current);
      current = [];
      bytes = 0;
    }
    current.push(f);
    bytes += framed;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}
