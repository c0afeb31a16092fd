import { TabBar } from "@/components/ui/tab-bar";

export function EvalNav({ agentId, pairCount }: { agentId: number; pairCount: number }) {
  const base = `/agents/${agentId}/eval`;
  return (
    <TabBar
      label="Recall evaluation"
      look="pills"
      tabs={[
        { href: base, label: "Dashboard", exact: true },
        { href: `${base}/pairs`, label: `Labeled pairs (${pairCount})` },
      ]}
    />
  );
}
