"use client";

import { isServer, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useEffect } from "react";

export function makeQueryClient() {
  return new QueryClient({
    defaultOptions: { queries: { staleTime: 30_000, refetchOnWindowFocus: false } },
  });
}

let browserClient: QueryClient | undefined;

// A new client per server request, one shared client in the browser.
function getQueryClient() {
  if (isServer) return makeQueryClient();
  browserClient ??= makeQueryClient();
  return browserClient;
}

export function Providers({ children }: { children: React.ReactNode }) {
  // Marks the page interactive, so browser tests type only once React handles the inputs.
  useEffect(() => {
    document.documentElement.dataset.hydrated = "true";
  }, []);
  return <QueryClientProvider client={getQueryClient()}>{children}</QueryClientProvider>;
}
