import type { Metadata } from "next";
import Link from "next/link";
import { AccountMenu } from "@/components/auth/account-menu";
import { HealthBanner } from "@/components/layout/health-banner";
import { Providers } from "@/components/providers";
import "./globals.css";

export const metadata: Metadata = {
  title: "KB Inspector",
  description: "Administer and inspect a RAG knowledge base",
  // app/favicon.ico answers /favicon.ico; browsers that take SVG use this sharper one.
  icons: { icon: [{ url: "/icon.svg", type: "image/svg+xml" }] },
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen font-sans">
        <header className="border-b border-slate-200 bg-white">
          <nav className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3 sm:px-6" aria-label="Main">
            <Link href="/" className="font-semibold text-slate-900">
              KB Inspector
            </Link>
            <Link href="/" className="text-sm text-slate-600 hover:text-slate-900">
              Agents
            </Link>
            <Link href="/audit" className="text-sm text-slate-600 hover:text-slate-900">
              Index health
            </Link>
            <AccountMenu />
          </nav>
        </header>
        <HealthBanner />
        <main className="mx-auto max-w-6xl px-4 py-6 sm:px-6 sm:py-8">
          <Providers>{children}</Providers>
        </main>
      </body>
    </html>
  );
}
