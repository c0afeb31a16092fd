import Link from "next/link";
import { logoutAction } from "@/lib/actions/auth";
import { authEnabled, currentIdentity } from "@/lib/auth";

/** The header's right end when sign-in is on: the role, API tokens for editors, and Sign out. */
export async function AccountMenu() {
  if (!authEnabled()) return null;
  const who = await currentIdentity();
  if (!who) return null;
  return (
    <div className="ml-auto flex flex-wrap items-center gap-x-4 gap-y-2 text-sm">
      {who.role === "editor" && (
        <Link href="/settings/tokens" className="text-slate-600 hover:text-slate-900">
          API tokens
        </Link>
      )}
      <span className="text-slate-500">Signed in as {who.role}</span>
      {who.via === "session" && (
        <form action={logoutAction}>
          <button type="submit" className="rounded border border-slate-300 px-3 py-1 text-slate-700 hover:bg-slate-50">
            Sign out
          </button>
        </form>
      )}
    </div>
  );
}
