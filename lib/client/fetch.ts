/** Browser-side calls to the app's JSON API; errors carry the API's message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function apiFetch<T>(url: string, init?: RequestInit): Promise<T> {
  const res = await fetch(url, init);
  const body = res.status === 204 ? null : await res.json().catch(() => null);
  if (!res.ok) {
    throw new ApiError(res.status, body?.error?.code ?? "error", body?.error?.message ?? `The server answered ${res.status}.`);
  }
  return body as T;
}

export const postJson = <T>(url: string, data: unknown) =>
  apiFetch<T>(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(data) });
