// Run by lib/db/drafts-crash.test.ts: publishes or discards a draft on the database in DATA_DIR
// and is killed (SIGKILL) inside that transaction, right after its first write of a document row.
// The kill comes from a temporary trigger and an SQL function of this process's own connection,
// so the app's code runs unchanged, with no hook for the test.
import { db } from "../lib/db/client";
import { discardDraft, publishDraft } from "../lib/db/drafts";

const [what, agentId, draftId] = process.argv.slice(2);
const conn = db();
conn.function("crash_now", () => {
  process.kill(process.pid, "SIGKILL");
  return 0;
});
conn.exec(
  what === "publish"
    ? "CREATE TEMP TRIGGER crash AFTER UPDATE OF status ON main.documents WHEN NEW.status = 'ready' BEGIN SELECT crash_now(); END"
    : "CREATE TEMP TRIGGER crash AFTER DELETE ON main.documents BEGIN SELECT crash_now(); END",
);
if (what === "publish") publishDraft(Number(agentId), Number(draftId));
else discardDraft(Number(agentId), Number(draftId));
process.stdout.write("not killed\n");
