import type { Metadata } from "next";
import { authEnabled, currentIdentity } from "@/lib/auth";
import { listTokens } from "@/lib/db/api-tokens";
import { CreateTokenForm } from "@/components/auth/create-token-form";
import { RevokeTokenButton } from "@/components/auth/revoke-token-button";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "API tokens · KB Inspector" };

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString("en-GB") : "—");

export default async function TokensPage() {
  const who = await currentIdentity();
  if (who?.role !== "editor") {
    return (
      <div role="alert" className="rounded border border-amber-200 bg-amber-50 p-6 text-sm text-amber-900">
        API tokens are managed by editors; you are signed in as a viewer.
      </div>
    );
  }
  const enabled = authEnabled();
  const tokens = listTokens();
  // A server component rendered once per request: the time of that request.
  // eslint-disable-next-line react-hooks/purity
  const now = Date.now();
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold">API tokens</h1>
        <p className="mt-1 text-sm text-slate-600">
          For scripts and CI: send <code>Authorization: Bearer &lt;token&gt;</code> with each request. A viewer token can read, search,
          inspect and run evaluations; an editor token can also change data. A token is shown once, when it is created.
        </p>
      </div>
      {!enabled && (
        <p role="note" className="rounded border border-amber-200 bg-amber-50 p-4 text-sm text-amber-900">
          Sign-in is off, so tokens are not checked and cannot be created: set <code>ADMIN_PASSWORD</code> and restart.
        </p>
      )}
      <CreateTokenForm />
      {tokens.length === 0 ? (
        <p className="rounded border border-dashed border-slate-300 bg-white p-8 text-center text-slate-600">No tokens yet.</p>
      ) : (
        <div className="relative overflow-x-auto">
          <table className="w-full rounded border border-slate-200 bg-white text-sm">
            <caption className="sr-only">API tokens</caption>
            <thead className="bg-slate-100 text-left whitespace-nowrap">
              <tr>
                <th className="px-4 py-2">Name</th>
                <th className="px-4 py-2">Role</th>
                <th className="px-4 py-2">Created</th>
                <th className="px-4 py-2">Last used</th>
                <th className="px-4 py-2">Expires</th>
                <th className="px-4 py-2">Status</th>
                <th className="px-4 py-2">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.map((t) => (
                <tr key={t.id} className="border-t border-slate-200">
                  <td className="px-4 py-2 font-medium">{t.name}</td>
                  <td className="px-4 py-2">{t.role}</td>
                  <td className="px-4 py-2">{when(t.created_at)}</td>
                  <td className="px-4 py-2">{when(t.last_used_at)}</td>
                  <td className="px-4 py-2">{t.expires_at ? when(t.expires_at) : "never"}</td>
                  <td className="px-4 py-2">
                    {t.revoked_at
                      ? `revoked ${when(t.revoked_at)}`
                      : t.expires_at && Date.parse(t.expires_at) <= now
                        ? "expired"
                        : "active"}
                  </td>
                  <td className="px-4 py-2 text-right">{!t.revoked_at && <RevokeTokenButton tokenId={t.id} name={t.name} />}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
