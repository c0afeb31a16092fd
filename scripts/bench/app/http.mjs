// Requests to the app and to Chroma, and the rounding of the figures.

export async function http(url, init = {}, expect = [200, 201]) {
  const res = await fetch(url, init);
  const text = await res.text();
  if (!expect.includes(res.status)) throw new Error(`${init.method ?? "GET"} ${url} answered ${res.status}: ${text.slice(0, 400)}`);
  return text ? JSON.parse(text) : null;
}
export const json = (method, body) => ({ method, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

export function percentile(values, p) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}
export const ms = (x) => Math.round(x * 10) / 10;
export const ratio = (x) => Math.round(x * 100) / 100;
