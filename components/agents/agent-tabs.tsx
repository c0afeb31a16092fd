import { TabBar } from "@/components/ui/tab-bar";

export function AgentTabs({ agentId }: { agentId: number }) {
  const base = `/agents/${agentId}`;
  return (
    <TabBar
      label="Agent sections"
      tabs={[
        { href: base, label: "Documents", exact: true, activeUnder: [`${base}/documents`] },
        { href: `${base}/search`, label: "Search inspector" },
        { href: `${base}/questions`, label: "Questions" },
        { href: `${base}/eval`, label: "Recall" },
        { href: `${base}/map`, label: "Map" },
        { href: `${base}/collisions`, label: "Collisions" },
        { href: `${base}/drafts`, label: "Drafts" },
        { href: `${base}/settings`, label: "Settings" },
      ]}
    />
  );
}
