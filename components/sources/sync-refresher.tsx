"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useRef } from "react";
import { queryKeys } from "@/lib/client/query-keys";

const EVERY_MS = 1500;

/** While a sync runs, the page is read again every moment so its progress shows; once it ends, cached searches are dropped. */
export function SyncRefresher({ agentId, running }: { agentId: number; running: boolean }) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const wasRunning = useRef(running);
  useEffect(() => {
    if (wasRunning.current && !running) void queryClient.invalidateQueries({ queryKey: queryKeys.agent(agentId) });
    wasRunning.current = running;
    if (!running) return;
    const timer = setInterval(() => router.refresh(), EVERY_MS);
    return () => clearInterval(timer);
  }, [agentId, running, router, queryClient]);
  return null;
}
